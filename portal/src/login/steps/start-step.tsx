import { useTranslation } from 'react-i18next';
import { loginStart } from '../../api/client.ts';
import { Button } from '../../components/button.tsx';
import type { LoginFlow } from '../login-flow.ts';
import { StepFrame } from './step-frame.tsx';

interface StartStepProps {
  flow: LoginFlow;
  title: string;
  /** The page's query string, passed through to /auth/login/start. */
  search: string;
}

export function StartStep({ flow, title, search }: StartStepProps) {
  const { t } = useTranslation();
  const { state } = flow;
  const email = state.email.trim();
  return (
    <StepFrame flow={flow} title={title} intro={<p>{t('login.start.intro')}</p>} cancellable={false}>
      <form
        className="form"
        onSubmit={(event) => {
          event.preventDefault();
          if (email) void flow.submit(() => loginStart(email, search));
        }}
      >
        <div className="field">
          <label htmlFor="login-email">{t('login.start.email')}</label>
          <input
            id="login-email"
            type="email"
            name="email"
            autoComplete="username"
            autoFocus
            required
            disabled={state.pending}
            value={state.email}
            onChange={(event) => flow.dispatch({ type: 'emailChanged', email: event.target.value })}
          />
        </div>
        <Button loading={state.pending} disabled={!email}>
          {t('login.start.submit')}
        </Button>
      </form>
    </StepFrame>
  );
}
