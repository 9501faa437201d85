import { useEffect, useRef, type ReactNode, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearch } from 'wouter';
import { ErrorAlert, Notice } from '../../components/alert.tsx';
import { Button } from '../../components/button.tsx';
import type { LoginFlow } from '../login-flow.ts';
import { resetPasswordHref } from '../login-query.ts';
import { RESET_EMAIL_KEY } from '../reset-email.ts';

interface StepFrameProps {
  flow: LoginFlow;
  title: string;
  intro?: ReactNode;
  /** Steps after Start offer Cancel, which returns to Start with email and error cleared. */
  cancellable?: boolean;
  /** Said under an `account_locked` error: what still works while the lock holds the password. */
  lockedHint?: string;
  /** Where focus goes after a failed attempt instead of the first input: the control that made it. */
  errorFocus?: RefObject<HTMLElement | null> | undefined;
  children: ReactNode;
}

export function StepFrame({ flow, title, intro, cancellable = true, lockedHint, errorFocus, children }: StepFrameProps) {
  const { t } = useTranslation();
  const { state } = flow;
  const search = useSearch();
  const sectionRef = useRef<HTMLElement>(null);
  const restartRef = useRef<HTMLButtonElement>(null);
  // A restart-kind error past Start: nothing in this step can work any more (the session is gone,
  // or no new code will be sent), so its form gives way to Start again.
  const ended = state.error?.kind === 'restart' && state.step !== 'Start';

  // After a failed attempt the inputs were disabled while it ran: put focus back on the first one
  // (or on the control the step names), or on Start again when the step has ended.
  useEffect(() => {
    if (!state.error || state.pending) return;
    const target = ended
      ? restartRef.current
      : (errorFocus?.current ?? sectionRef.current?.querySelector<HTMLInputElement>('input:not([type="hidden"]):not([hidden]):not(:disabled)'));
    target?.focus();
  }, [state.error, state.pending, ended, errorFocus]);

  return (
    <section className="step" ref={sectionRef}>
      <h1 id="step-title">{title}</h1>
      {state.step !== 'Start' && state.email && <p className="signed-in-as">{t('login.signed_in_as', { email: state.email })}</p>}
      {intro && <div className="step-intro">{intro}</div>}
      {!ended && children}
      <ErrorAlert message={flow.errorText} />
      {state.error?.kind === 'restart' && <p className="muted">{t('login.restart_notice')}</p>}
      {ended && (
        // The email is kept: Continue on Start begins a new session (and sends a new code).
        <Button type="button" ref={restartRef} onClick={() => flow.dispatch({ type: 'restarted' })}>
          {t('login.start_again')}
        </Button>
      )}
      {state.error?.key === 'errors.account_locked' && (
        // A completed reset ends the lock (a long one lasts until then), so it is offered here,
        // where the credentials step's Forgot password? cannot be reached.
        <p className="muted">
          <Link href={resetPasswordHref(search)} className="text-link" onClick={() => sessionStorage.setItem(RESET_EMAIL_KEY, state.email)}>
            {t('login.locked_reset')}
          </Link>
        </p>
      )}
      {state.error?.key === 'errors.account_locked' && lockedHint && <p className="muted">{lockedHint}</p>}
      <Notice message={state.notice ? t(state.notice) : null} />
      {cancellable && !ended && (
        // Not while a call runs: its answer would land after Cancel, and a sign-in that completed
        // on the server would carry the person on (signed in) from a page showing Start.
        <Button type="button" variant="link" className="cancel" onClick={flow.cancel} disabled={state.pending}>
          {t('app.cancel')}
        </Button>
      )}
    </section>
  );
}
