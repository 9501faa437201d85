import { useEffect, useState, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { offersPasskey, passkeyProblem, passkeysSupported, PASSKEY_PROBLEM_KEYS, signInWithPasskey, type PasskeyProblem } from '../../api/passkeys.ts';
import type { LoginSessionResponse } from '../../api/types.ts';
import { ErrorAlert } from '../../components/alert.tsx';
import { Button } from '../../components/button.tsx';
import type { LoginFlow } from '../login-flow.ts';

/** Whether the credentials step shows the passkey button: the account has one and this browser can use it. */
export function passkeyOffered(session: LoginSessionResponse | null): boolean {
  return offersPasskey(session) && passkeysSupported();
}

interface PasskeyButtonProps {
  flow: LoginFlow;
  buttonRef: RefObject<HTMLButtonElement | null>;
  /** True while the passkey sign-in runs; the step keeps its password form waiting meanwhile. */
  pending: boolean;
  onPendingChange: (pending: boolean) => void;
}

/**
 * "Sign in with a passkey" on the credentials step. The browser's prompt and the passkey's own
 * failures (cancelled, not allowed here, unknown passkey, not verified, network) are told here,
 * under the button, and leave the step as it was; every other answer goes to the sign-in flow,
 * which follows the next state (normally Done) or shows its own error (session expired, locked).
 * The button is disabled while the password is being verified, so only one sign-in runs at a time.
 */
export function PasskeyButton({ flow, buttonRef, pending, onPendingChange }: PasskeyButtonProps) {
  const { t } = useTranslation();
  const { state, sessionId, dispatch } = flow;
  const [problem, setProblem] = useState<PasskeyProblem | null>(null);
  // The button was disabled while the attempt ran, so focus was lost: a failed attempt gives it back.
  const [failures, setFailures] = useState(0);
  useEffect(() => {
    if (failures > 0) buttonRef.current?.focus();
  }, [failures, buttonRef]);

  const signIn = async () => {
    setProblem(null);
    onPendingChange(true);
    try {
      const answer = await signInWithPasskey(sessionId);
      dispatch({ type: 'answered', session: answer });
    } catch (error) {
      const found = passkeyProblem(error);
      if (found) setProblem(found);
      else dispatch({ type: 'failed', error });
      setFailures((count) => count + 1);
    } finally {
      onPendingChange(false);
    }
  };

  return (
    <>
      <Button
        ref={buttonRef}
        type="button"
        variant="secondary"
        className="btn-provider btn-passkey"
        loading={pending}
        disabled={state.pending}
        onClick={() => void signIn()}
      >
        {t('passkey.sign_in')}
      </Button>
      <ErrorAlert message={problem ? t(PASSKEY_PROBLEM_KEYS[problem]) : null} />
    </>
  );
}
