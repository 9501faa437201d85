import { useTranslation } from 'react-i18next';
import type { AvailableCredential } from '../api/types.ts';
import { PROVIDERS } from '../login/providers.ts';

/**
 * The account's sign-in methods, read-only. Two-factor has its own section; switches for password,
 * Google and Microsoft belong to the account-profile work.
 */
export function SignInMethods({ credentials }: { credentials: readonly AvailableCredential[] }) {
  const { t } = useTranslation();
  const methods = credentials.filter((credential) => credential.type !== 'totp');
  return (
    <section className="profile-section" aria-labelledby="methods-title">
      <h2 id="methods-title">{t('profile.methods.title')}</h2>
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
