import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { mergeMfa, verifyMfa } from '../../api/client.ts';
import { Button } from '../../components/button.tsx';
import { CodeField, TOTP_LENGTH } from '../../components/code-field.tsx';
import type { LoginFlow } from '../login-flow.ts';
import { StepFrame } from './step-frame.tsx';

/**
 * Authenticator code; remember-me only when the server allows remembering this device. A refused
 * code is cleared (StepFrame puts focus back in the field), so the next one can be typed at once.
 */
export function MfaStep({ flow }: { flow: LoginFlow }) {
  const { t } = useTranslation();
  const { state } = flow;
  const [code, setCode] = useState('');
  const [remember, setRemember] = useState(false);
  const allowRemember = state.session?.allow_totp_remember === true;
  return (
    <StepFrame flow={flow} title={t('login.mfa.title')} intro={<p>{t('login.mfa.body')}</p>}>
      <form
        className="form"
        onSubmit={(event) => {
          event.preventDefault();
          if (code.length !== TOTP_LENGTH) return;
          void flow
            .submit((id) => verifyMfa({ session_id: id, totp_code: code, remember: allowRemember && remember }))
            .then(() => setCode(''));
        }}
      >
        <CodeField label={t('login.mfa.code')} value={code} onChange={setCode} disabled={state.pending} />
        {allowRemember && (
          <label className="checkbox">
            <input type="checkbox" checked={remember} disabled={state.pending} onChange={(event) => setRemember(event.target.checked)} />
            {t('login.mfa.remember')}
          </label>
        )}
        <Button loading={state.pending} disabled={code.length !== TOTP_LENGTH}>
          {t('login.mfa.submit')}
        </Button>
      </form>
    </StepFrame>
  );
}

/**
 * Several two-factor credentials exist: the one whose code is entered is kept, others removed. A
 * refused code is cleared, as in MfaStep.
 */
export function TotpResetStep({ flow }: { flow: LoginFlow }) {
  const { t } = useTranslation();
  const { state } = flow;
  const [code, setCode] = useState('');
  return (
    <StepFrame flow={flow} title={t('login.totp_reset.title')} intro={<p>{t('login.totp_reset.body')}</p>}>
      <form
        className="form"
        onSubmit={(event) => {
          event.preventDefault();
          if (code.length !== TOTP_LENGTH) return;
          void flow.submit((id) => mergeMfa({ session_id: id, totp_code: code })).then(() => setCode(''));
        }}
      >
        <p>{t('login.totp_reset.instruction')}</p>
        <CodeField label={t('login.mfa.code')} value={code} onChange={setCode} disabled={state.pending} />
        <Button loading={state.pending} disabled={code.length !== TOTP_LENGTH}>
          {t('login.totp_reset.submit')}
        </Button>
      </form>
    </StepFrame>
  );
}
