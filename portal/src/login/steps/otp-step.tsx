import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { resendOtp, verifyOtp } from '../../api/client.ts';
import { Button } from '../../components/button.tsx';
import { OTP_LENGTH, OtpInput } from '../../components/otp-input.tsx';
import type { LoginFlow } from '../login-flow.ts';
import { StepFrame } from './step-frame.tsx';

/**
 * Email one-time code. A soft error (wrong code) keeps the boxes, cleared, with the error beneath;
 * a hard one (code expired) hides them until a new code is sent. Retries used up is a restart
 * error: the server sends no new code in this session, so StepFrame hides the boxes and the resend
 * alike and offers Start again.
 */
export function OtpStep({ flow }: { flow: LoginFlow }) {
  const { t } = useTranslation();
  const { state } = flow;
  const [code, setCode] = useState('');
  // Each failed attempt remounts the boxes: cleared, focus back on the first one.
  const [attempt, setAttempt] = useState(0);
  // Sending a new code: its own button is busy, not Verify.
  const [resending, setResending] = useState(false);
  const hard = state.error?.kind === 'hard';
  const resendRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (hard) resendRef.current?.focus();
  }, [hard]);

  const verify = async (otp: string) => {
    if (otp.length !== OTP_LENGTH || state.pending) return;
    await flow.submit((sessionId) => verifyOtp({ session_id: sessionId, email: state.email, otp }));
    setCode('');
    setAttempt((n) => n + 1);
  };

  // The boxes come back empty (and disabled while the code is sent); OtpInput focuses the first
  // one as soon as they are enabled, so the new code can be typed at once.
  const resend = async () => {
    setCode('');
    setAttempt((n) => n + 1);
    setResending(true);
    await flow.notify((sessionId) => resendOtp({ session_id: sessionId }), 'login.otp.resent');
    setResending(false);
  };

  return (
    <StepFrame flow={flow} title={t('login.otp.title')} intro={<p>{t('login.otp.body', { email: state.email })}</p>}>
      {!hard && (
        <form
          className="form"
          onSubmit={(event) => {
            event.preventDefault();
            void verify(code);
          }}
        >
          <fieldset className="otp-fieldset">
            <legend>{t('login.otp.legend')}</legend>
            <OtpInput key={attempt} disabled={state.pending} onChange={setCode} onComplete={(otp) => void verify(otp)} />
          </fieldset>
          <Button loading={state.pending && !resending} disabled={state.pending || code.length !== OTP_LENGTH}>
            {t('login.otp.submit')}
          </Button>
        </form>
      )}
      <Button type="button" variant="link" ref={resendRef} loading={resending} disabled={state.pending} onClick={() => void resend()}>
        {t('login.otp.resend')}
      </Button>
    </StepFrame>
  );
}
