import { useTranslation } from 'react-i18next';
import type { AvailableCredential, UserInfo } from '../api/types.ts';
import { PROVIDERS } from '../login/providers.ts';
import { PasswordSwitch } from './password-switch.tsx';
import { UpstreamSwitches } from './upstream-switches.tsx';

interface SignInMethodsProps {
  credentials: readonly AvailableCredential[];
  user: UserInfo;
  /** After a change to the methods: reload the user info. */
  onChanged: () => void;
}

/**
 * The account's sign-in methods: the email-password switch, then the saved methods. Two-factor
 * has its own section.
 */
export function SignInMethods({ credentials, user, onChanged }: SignInMethodsProps) {
  const { t } = useTranslation();
  const methods = credentials.filter((credential) => credential.type !== 'totp');
  return (
    <section className="profile-section" aria-labelledby="methods-title">
      <h2 id="methods-title">{t('profile.methods.title')}</h2>
      <PasswordSwitch email={user.email} isUser={user.is_user === true} credentials={credentials} onChanged={onChanged} />
      {methods.length === 0 ? (
        <p className="muted">{t('profile.methods.empty')}</p>
      ) : (
        <ul className="profile-list">
          {methods.map((credential) => (
            <li key={credential.id} className="profile-item">
              <span className="item-name">
                <MethodName credential={credential} />
              </span>
            </li>
          ))}
        </ul>
      )}
      <UpstreamSwitches credentials={credentials} email={user.email} onChanged={onChanged} />
    </section>
  );
}

function MethodName({ credential }: { credential: AvailableCredential }) {
  const { t } = useTranslation();
  switch (credential.type) {
    case 'password':
      return t('profile.methods.password');
    case 'webauthn':
      return t('profile.methods.webauthn');
    case 'oidc': {
      const host = (credential.provider ?? '').toLowerCase();
      const provider = PROVIDERS.find((name) => host.includes(name));
      const label = provider === 'google' ? t('provider.google') : provider === 'microsoft' ? t('provider.microsoft') : host;
      return t('profile.methods.oidc', { provider: label || t('profile.methods.other') });
    }
    default:
      return t('profile.methods.other');
  }
}
