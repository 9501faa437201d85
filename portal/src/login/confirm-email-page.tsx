import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { confirmEmailChange, isApiError } from '../api/client.ts';
import { ErrorAlert, Notice } from '../components/alert.tsx';
import { AuthLayout } from '../components/auth-layout.tsx';
import { Button } from '../components/button.tsx';
import { useAutoFocus } from '../components/use-auto-focus.ts';
import { retryableErrorKey } from './error-messages.ts';
import { nextFailedTry, RetryFailure, type FailedTry } from './retry-failure.tsx';

/** `failed`: no answer, 429 or 5xx; Try again confirms again with the same token. */
type Status = 'ready' | 'confirming' | 'failed' | 'invalid' | 'taken' | 'done';

/**
 * /login/confirm-email/:token — the link an operator's email change mailed to the new address.
 * Nothing is confirmed on opening: mail scanners fetch links, and a fetch must not move the
 * account. The person presses Confirm. A refusal of the link (406) says it is invalid; a failure
 * that may pass keeps the page and the token (only the mail holds it) and offers Try again.
 */
export function ConfirmEmailPage({ token }: { token: string }) {
  const { t } = useTranslation();
  const [status, setStatus] = useState<Status>('ready');
  const [failure, setFailure] = useState<FailedTry | null>(null);
  const [email, setEmail] = useState('');
  const confirmRef = useAutoFocus<HTMLButtonElement>();

  const confirm = async () => {
    setStatus('confirming');
    try {
      const answer = await confirmEmailChange({ token });
      setEmail(answer.email);
      setStatus('done');
    } catch (error) {
      if (isApiError(error) && error.status === 409) {
        setStatus('taken');
        return;
      }
      const retryKey = isApiError(error) && error.status === 406 ? null : retryableErrorKey(error);
      if (retryKey === null) {
        setStatus('invalid');
        return;
      }
      setFailure((previous) => nextFailedTry(previous, retryKey));
      setStatus('failed');
    }
  };

  return (
    <AuthLayout>
      <section className="step">
        <h1>{t('confirm_email.title')}</h1>
        {status === 'ready' && (
          <>
            <p>{t('confirm_email.intro')}</p>
            <Button ref={confirmRef} type="button" onClick={() => void confirm()}>
              {t('confirm_email.submit')}
            </Button>
          </>
        )}
        {status === 'confirming' && !failure && (
          <Button type="button" loading>
            {t('confirm_email.submit')}
          </Button>
        )}
        {(status === 'failed' || status === 'confirming') && failure && (
          <RetryFailure failure={failure} retrying={status === 'confirming'} onRetry={() => void confirm()} />
        )}
        {status === 'invalid' && (
          <>
            <ErrorAlert message={t('errors.invalid_or_expired_token')} />
            <p>{t('confirm_email.invalid_help')}</p>
          </>
        )}
        {status === 'taken' && <ErrorAlert message={t('confirm_email.taken')} />}
        {status === 'done' && (
          <>
            <Notice message={t('confirm_email.done', { email })} />
            <Link href="/login" className="btn btn-primary">
              {t('app.go_to_login')}
            </Link>
          </>
        )}
        {status !== 'done' && (
          <Link href="/login" className="text-link">
            {t('app.back_to_login')}
          </Link>
        )}
      </section>
    </AuthLayout>
  );
}
