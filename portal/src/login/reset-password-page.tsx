import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearch } from 'wouter';
import { resetRequest } from '../api/client.ts';
import { ErrorAlert, Notice } from '../components/alert.tsx';
import { AuthLayout } from '../components/auth-layout.tsx';
import { Button } from '../components/button.tsx';
import { useAutoFocus, useFocusOnEach } from '../components/use-auto-focus.ts';
import { resetRequestErrorKey } from './error-messages.ts';
import { backToLoginHref } from './login-query.ts';
import { RESET_EMAIL_KEY } from './reset-email.ts';

/** Spec section 5: a simple address pattern; submit stays disabled until it matches. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function storedEmail(): string {
  try {
    return sessionStorage.getItem(RESET_EMAIL_KEY) ?? '';
  } catch {
    return '';
  }
}

/** /login/reset-password: the confirmation never reveals whether the address has an account. */
export function ResetPasswordPage() {
  const { t } = useTranslation();
  const search = useSearch();
  const query = new URLSearchParams(search);
  const [email, setEmail] = useState(() => query.get('email') ?? storedEmail());
  const [status, setStatus] = useState<'idle' | 'sending' | 'sent'>('idle');
  const [errorKey, setErrorKey] = useState<string | null>(null);
  const valid = EMAIL_PATTERN.test(email.trim());
  // The form (and the focused button in it) is replaced by the confirmation: focus moves to its
  // heading, so it is read out and Tab goes on from there rather than from the top of the page.
  const sentRef = useAutoFocus<HTMLHeadingElement>(status === 'sent');
  // After a failure the address field, disabled while sending, has focus again to correct or resend.
  const [failures, setFailures] = useState(0);
  const emailRef = useFocusOnEach<HTMLInputElement>(failures);

  const send = async () => {
    const address = email.trim();
    sessionStorage.setItem(RESET_EMAIL_KEY, address);
    setStatus('sending');
    setErrorKey(null);
    try {
      await resetRequest({ email: address, type: query.get('type') });
      setStatus('sent');
    } catch (error) {
      setErrorKey(resetRequestErrorKey(error));
      setStatus('idle');
      setFailures((count) => count + 1);
    }
  };

  return (
    <AuthLayout showLanguages={!query.has('lang')}>
      <section className="step">
        <h1 id="reset-title">{t('reset.title')}</h1>
        {status === 'sent' ? (
          <>
            <h2 className="success-title" ref={sentRef} tabIndex={-1}>
              {t('reset.sent_title')}
            </h2>
            <Notice message={t('reset.sent_body')} />
          </>
        ) : (
          <form
            className="form"
            onSubmit={(event) => {
              event.preventDefault();
              if (valid) void send();
            }}
          >
            <p>{t('reset.intro')}</p>
            <div className="field">
              <label htmlFor="reset-email">{t('login.start.email')}</label>
              <input
                id="reset-email"
                ref={emailRef}
                type="email"
                autoComplete="email"
                autoFocus
                required
                disabled={status === 'sending'}
                value={email}
                onChange={(event) => setEmail(event.target.value)}
              />
            </div>
            <Button loading={status === 'sending'} disabled={!valid}>
              {t('reset.submit')}
            </Button>
            <ErrorAlert message={errorKey ? t(errorKey) : null} />
          </form>
        )}
        <Link href={backToLoginHref(search)} className="text-link">
          {t('app.back_to_login')}
        </Link>
      </section>
    </AuthLayout>
  );
}
