import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearch } from 'wouter';
import { checkResetToken, confirmReset, isApiError } from '../api/client.ts';
import { ErrorAlert, Notice } from '../components/alert.tsx';
import { AuthLayout } from '../components/auth-layout.tsx';
import { Button } from '../components/button.tsx';
import { useAutoFocus } from '../components/use-auto-focus.ts';
import { PasswordFields } from '../components/password-fields.tsx';
import { SHARING_PORTAL_PATH } from './done-target.ts';
import { confirmResetErrorText, isPasswordRefusal, isSpentResetLink, retryableErrorKey } from './error-messages.ts';
import { SET_PASSWORD_PROBLEM_KEYS, setPasswordProblem, visibleSetPasswordProblem } from './password-rules.ts';
import { nextFailedTry, RetryFailure, type FailedTry } from './retry-failure.tsx';

/** `unchecked`: the link could not be checked (no answer, 429, 5xx); Try again checks it again. */
type Status = 'checking' | 'unchecked' | 'invalid' | 'ready' | 'saving' | 'done';

/** /login/set-password/:token — choose and repeat a new password from a reset link. */
export function SetPasswordPage({ token }: { token: string }) {
  const { t } = useTranslation();
  const [status, setStatus] = useState<Status>('checking');
  // Each run of the token check; Try again starts another.
  const [checkRun, setCheckRun] = useState(0);
  const [checkFailure, setCheckFailure] = useState<FailedTry | null>(null);
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [touched, setTouched] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [accountType, setAccountType] = useState<string | null>(null);
  // The fields and button were disabled while saving, so focus was lost: after a refusal of the
  // password it goes to the password, after any other failure to the button.
  const [refusal, setRefusal] = useState<{ target: 'password' | 'submit' } | null>(null);
  const passwordRef = useRef<HTMLInputElement>(null);
  const submitRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (refusal) (refusal.target === 'password' ? passwordRef : submitRef).current?.focus();
  }, [refusal]);

  useEffect(() => {
    let active = true;
    checkResetToken({ token }).then(
      () => {
        if (!active) return;
        setCheckFailure(null);
        setStatus('ready');
      },
      (failure: unknown) => {
        if (!active) return;
        // No answer, too many requests or the service failing says nothing of the link: the page
        // stays (leaving would lose the token, which only the mail holds) and offers Try again.
        // 406 (invalid or expired) — or any other refusal of the token — says so and hides the form.
        const retryKey = isApiError(failure) && failure.status === 406 ? null : retryableErrorKey(failure);
        if (retryKey === null) {
          setStatus('invalid');
          return;
        }
        setCheckFailure((previous) => nextFailedTry(previous, retryKey));
        setStatus('unchecked');
      },
    );
    return () => {
      active = false;
    };
  }, [token, checkRun]);

  const problem = setPasswordProblem(password, repeat);
  const visible = visibleSetPasswordProblem(password, repeat, touched);
  const problemText = visible ? t(SET_PASSWORD_PROBLEM_KEYS[visible]) : null;

  const save = async () => {
    setStatus('saving');
    setError(null);
    try {
      const answer = await confirmReset({ token, password });
      setAccountType(answer.type ?? null);
      setStatus('done');
    } catch (failure) {
      setError(confirmResetErrorText(failure, t));
      // Spent or expired meanwhile: the form can no longer work, so it gives way to a new link.
      if (isSpentResetLink(failure)) {
        setStatus('invalid');
        return;
      }
      setStatus('ready');
      setRefusal({ target: isPasswordRefusal(failure) ? 'password' : 'submit' });
    }
  };

  return (
    <AuthLayout>
      <section className="step">
        <h1 id="set-password-title">{status === 'done' ? t('success.new_password_set') : t('set_password.title')}</h1>
        {status === 'checking' && !checkFailure && <p role="status">{t('set_password.checking')}</p>}
        {(status === 'unchecked' || status === 'checking') && checkFailure && (
          <RetryFailure
            failure={checkFailure}
            retrying={status === 'checking'}
            onRetry={() => {
              setStatus('checking');
              setCheckRun((n) => n + 1);
            }}
          />
        )}
        {status === 'invalid' && <InvalidLink message={error ?? t('errors.invalid_or_expired_token')} />}
        {(status === 'ready' || status === 'saving') && (
          <form
            className="form"
            onSubmit={(event) => {
              event.preventDefault();
              setTouched(true);
              if (problem === null) void save();
            }}
          >
            <PasswordFields
              password={password}
              repeat={repeat}
              onPasswordChange={setPassword}
              onPasswordBlur={() => setTouched(true)}
              onRepeatChange={(value) => {
                setTouched(true);
                setRepeat(value);
              }}
              disabled={status === 'saving'}
              autoFocus
              passwordRef={passwordRef}
              problem={problemText}
            />
            <Button ref={submitRef} loading={status === 'saving'} disabled={problem !== null}>
              {t('set_password.submit')}
            </Button>
            <ErrorAlert message={error} />
          </form>
        )}
        {status === 'done' && (
          <>
            <Notice message={t('set_password.done_body')} />
            <Button type="button" autoFocus onClick={() => window.location.assign(accountType ? SHARING_PORTAL_PATH : '/login')}>
              {t('app.go_to_login')}
            </Button>
          </>
        )}
      </section>
    </AuthLayout>
  );
}

/**
 * A used or expired link (found on opening it, or when setting the password): say so and lead on,
 * so a locked-out person need not type a URL. Focus goes to the new link (the alert is read out as
 * it appears). The language stays, as these are in-page navigations; a `lang` in the query goes
 * along too, for pages that read it.
 */
function InvalidLink({ message }: { message: string }) {
  const { t } = useTranslation();
  const lang = new URLSearchParams(useSearch()).get('lang');
  const query = lang ? `?${new URLSearchParams({ lang })}` : '';
  const newLinkRef = useAutoFocus<HTMLAnchorElement>();
  return (
    <>
      <ErrorAlert message={message} />
      <p>{t('set_password.invalid_help')}</p>
      <Link ref={newLinkRef} href={`/login/reset-password${query}`} className="btn btn-primary">
        {t('set_password.new_link')}
      </Link>
      <Link href={`/login${query}`} className="text-link">
        {t('app.back_to_login')}
      </Link>
    </>
  );
}
