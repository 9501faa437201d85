import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { resetRequest } from '../../api/client.ts';
import { ErrorAlert, Notice } from '../../components/alert.tsx';
import { Button } from '../../components/button.tsx';
import { useAutoFocus, useFocusOnEach } from '../../components/use-auto-focus.ts';
import { resetRequestErrorKey } from '../error-messages.ts';
import type { LoginFlow } from '../login-flow.ts';
import { StepFrame } from './step-frame.tsx';

/** The migration notice: one account per email now, so a new password must be created. */
export function ResetRequiredStep({ flow, resetType }: { flow: LoginFlow; resetType: string | null }) {
  const { t } = useTranslation();
  const { email } = flow.state;
  const [status, setStatus] = useState<'idle' | 'sending' | 'sent'>('idle');
  const [errorKey, setErrorKey] = useState<string | null>(null);
  // The button was disabled while sending and so lost focus: it gets it back after a failure, and
  // the confirmation's heading gets it once the button is gone (as on /login/reset-password).
  const [failures, setFailures] = useState(0);
  const buttonRef = useFocusOnEach<HTMLButtonElement>(failures);
  const sentRef = useAutoFocus<HTMLHeadingElement>(status === 'sent');

  const send = async () => {
    setStatus('sending');
    setErrorKey(null);
    try {
      await resetRequest({ email, type: resetType });
      setStatus('sent');
    } catch (error) {
      setErrorKey(resetRequestErrorKey(error));
      setStatus('idle');
      setFailures((count) => count + 1);
    }
  };

  return (
    <StepFrame flow={flow} title={t('login.reset_required.title')} intro={<p>{t('login.reset_required.body')}</p>}>
      {status !== 'sent' ? (
        <>
          <p>{t('login.reset_required.action', { email })}</p>
          <Button type="button" ref={buttonRef} autoFocus loading={status === 'sending'} onClick={() => void send()}>
            {t('login.reset_required.submit')}
          </Button>
          <ErrorAlert message={errorKey ? t(errorKey) : null} />
        </>
      ) : (
        <>
          <h2 className="success-title" ref={sentRef} tabIndex={-1}>
            {t('reset.sent_title')}
          </h2>
          <Notice message={t('reset.sent_body')} />
        </>
      )}
    </StepFrame>
  );
}
