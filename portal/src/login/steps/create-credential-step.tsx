import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { createPassword, skipCreatePassword } from '../../api/client.ts';
import { Button } from '../../components/button.tsx';
import { PasswordFields } from '../../components/password-fields.tsx';
import type { LoginFlow } from '../login-flow.ts';
import { isCreatePasswordValid } from '../password-rules.ts';
import { useConfiguredProviders } from '../oauth-providers.ts';
import { linkableProviders, providerLinkUrl } from '../providers.ts';
import { useInactivity } from '../use-inactivity.ts';
import { StepFrame } from './step-frame.tsx';

/** Spec section 9: the step skips itself after a minute without any activity. */
export const AUTO_SKIP_MS = 60_000;

/** Signed in by email code with no other credential: link a provider, create a password, or skip. */
export function CreateCredentialStep({ flow }: { flow: LoginFlow }) {
  const { t } = useTranslation();
  const { state, sessionId } = flow;
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  // While loading, or after a failed load, no link: a provider that may not be configured is never offered.
  const configured = useConfiguredProviders().list ?? [];
  // Skipping (by click or after a minute without activity): Skip is busy, not Create password.
  const [skipping, setSkipping] = useState(false);
  const skip = async () => {
    setSkipping(true);
    await flow.submit((id) => skipCreatePassword({ session_id: id }));
    setSkipping(false);
  };

  useInactivity(AUTO_SKIP_MS, () => void skip(), !state.pending);

  return (
    <StepFrame flow={flow} title={t('login.create_credential.title')} intro={<p>{t('login.create_credential.body')}</p>}>
      <div className="provider-buttons">
        {linkableProviders(state.session, configured).map((provider) => (
          <a key={provider} className={`btn btn-secondary btn-provider provider-${provider}`} href={providerLinkUrl(provider, sessionId)}>
            {t(`login.create_credential.link_${provider}`)}
          </a>
        ))}
      </div>
      <form
        className="form"
        onSubmit={(event) => {
          event.preventDefault();
          if (!isCreatePasswordValid(password, repeat)) return;
          void flow.submit((id) => createPassword({ session_id: id, password }));
        }}
      >
        <h2>{t('login.create_credential.password_heading')}</h2>
        <input type="email" name="username" autoComplete="username" value={state.email} readOnly hidden />
        <PasswordFields
          password={password}
          repeat={repeat}
          onPasswordChange={setPassword}
          onRepeatChange={setRepeat}
          disabled={state.pending}
          autoFocus
        />
        <Button loading={state.pending && !skipping} disabled={state.pending || !isCreatePasswordValid(password, repeat)}>
          {t('login.create_credential.submit')}
        </Button>
      </form>
      <Button type="button" variant="secondary" loading={skipping} disabled={state.pending} onClick={() => void skip()}>
        {t('login.create_credential.skip')}
      </Button>
      <p className="muted">{t('login.create_credential.auto_skip')}</p>
    </StepFrame>
  );
}
