import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { resetRequest } from '../../api/client.ts';
import { ErrorAlert, Notice } from '../../components/alert.tsx';
import { Button } from '../../components/button.tsx';
import { resetRequestErrorKey } from '../error-messages.ts';
import type { LoginFlow } from '../login-flow.ts';
import { StepFrame } from './step-frame.tsx';

/** The migration notice: one account per email now, so a new password must be created. */
export function ResetRequiredStep({ flow, resetType }: { flow: LoginFlow; resetType: string | null }) {
  const { t } = useTranslation();
  const { email } = flow.state;
  const [status, setStatus] = useState<'idle' | 'sending' | 'sent'>('idle');
  const [errorKey, setErrorKey] = useState<string | null>(null);

  const send = async () => {
    setStatus('sending');
    setErrorKey(null);
    try {
      await resetRequest({ email, type: resetType });
      setStatus('sent');
    } catch (error) {
      setErrorKey(resetRequestErrorKey(error));
      setStatus('idle');
    }
  };

  return (
    <StepFrame flow={flow} title={t('login.reset_required.title')} intro={<p>{t('login.reset_required.body')}</p>}>
      {status !== 'sent' ? (
        <>
          <p>{t('login.reset_required.action', { email })}</p>
          <Button type="button" autoFocus loading={status === 'sending'} onClick={() => void send()}>
            {t('login.reset_required.submit')}
          </Button>
          <ErrorAlert message={errorKey ? t(errorKey) : null} />
        </>
      ) : (
        <>
          <h2 className="success-title">{t('reset.sent_title')}</h2>
          <Notice message={t('reset.sent_body')} />
        </>
      )}
    </StepFrame>
  );
}
