import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearch } from 'wouter';
import { verifyPassword } from '../../api/client.ts';
import { ErrorAlert, Notice } from '../../components/alert.tsx';
import { Button } from '../../components/button.tsx';
import { useAutoFocus } from '../../components/use-auto-focus.ts';
import type { LoginFlow } from '../login-flow.ts';
import { resetPasswordHref } from '../login-query.ts';
import { useConfiguredProviders } from '../oauth-providers.ts';
import { credentialOptions, providerSignInUrl, singleProvider } from '../providers.ts';
import { RESET_EMAIL_KEY } from '../reset-email.ts';
import { PasskeyButton, passkeyOffered } from './passkey-button.tsx';
import { StepFrame } from './step-frame.tsx';

interface CredentialsStepProps {
  flow: LoginFlow;
  title: string;
  /** False when the page was reached with an error (e.g. back from a failed upstream sign-in). */
  allowAutoRedirect: boolean;
  /** `second_factor=1` in the query: the page that sent the person here needs a second factor. */
  secondFactor?: boolean;
}

export function CredentialsStep({ flow, title, allowAutoRedirect, secondFactor = false }: CredentialsStepProps) {
  const { t } = useTranslation();
  const { state, sessionId } = flow;
  const search = useSearch();
  const [password, setPassword] = useState('');
  const [remember, setRemember] = useState(false);
  // One sign-in at a time: the password form waits while the passkey sign-in runs (and the passkey
  // button while the password is verified). A failed attempt gives focus back to its own control.
  const [passkeyPending, setPasskeyPending] = useState(false);
  const [lastAttempt, setLastAttempt] = useState<'password' | 'passkey'>('password');
  const busy = state.pending || passkeyPending;
  const configured = useConfiguredProviders();
  const passkey = passkeyOffered(state.session);
  const { providers, showPassword, unclassified } = credentialOptions(state.session, configured, passkey);
  // Asked for a second factor, the passkey is the one-step way to prove it: it gets the focus.
  const passkeyFirst = secondFactor && passkey;
  const firstProviderRef = useAutoFocus<HTMLAnchorElement>(!showPassword && !passkeyFirst && providers.length > 0);
  const passkeyRef = useAutoFocus<HTMLButtonElement>(passkeyFirst || (!showPassword && providers.length === 0));
  // Without the list (it failed to load) the credential's host still names its provider.
  const only = allowAutoRedirect && !state.error && (configured.list || configured.failed) ? singleProvider(state.session, configured.list) : null;

  // A single-provider account goes straight to its provider (spec section 2).
  useEffect(() => {
    if (only) window.location.assign(providerSignInUrl(only, sessionId));
  }, [only, sessionId]);

  if (only) {
    return (
      <StepFrame flow={flow} title={title}>
        <Notice message={t('login.credentials.redirecting', { provider: t(`provider.${only}`) })} />
      </StepFrame>
    );
  }

  const intro = secondFactor ? (
    <p className="alert alert-info" role="note">
      {passkey ? t('login.credentials.second_factor_passkey') : t('login.credentials.second_factor')}
    </p>
  ) : undefined;

  return (
    <StepFrame
      flow={flow}
      title={title}
      intro={intro}
      lockedHint={providers.length > 0 ? t('login.locked_other_ways') : passkey ? t('login.locked_passkey') : undefined}
      errorFocus={lastAttempt === 'passkey' ? passkeyRef : undefined}
    >
      {unclassified && <ProvidersUnknown failed={configured.failed} onRetry={configured.retry} />}
      {(providers.length > 0 || passkey) && (
        <div className="provider-buttons">
          {passkey && (
            <PasskeyButton
              flow={flow}
              buttonRef={passkeyRef}
              pending={passkeyPending}
              onPendingChange={(pending) => {
                setPasskeyPending(pending);
                if (pending) setLastAttempt('passkey');
              }}
            />
          )}
          {providers.map((provider, index) => (
            <a
              key={provider}
              className={`btn btn-secondary btn-provider provider-${provider}`}
              href={providerSignInUrl(provider, sessionId)}
              ref={index === 0 ? firstProviderRef : undefined}
            >
              {t(`login.credentials.${provider}`)}
            </a>
          ))}
        </div>
      )}
      {(providers.length > 0 || passkey) && showPassword && (
        <p className="divider">
          <span>{t('login.credentials.or')}</span>
        </p>
      )}
      {showPassword && (
        <form
          className="form"
          onSubmit={(event) => {
            event.preventDefault();
            if (!password || busy) return;
            setLastAttempt('password');
            void flow.submit((id) => verifyPassword({ session_id: id, email: state.email, password, remember }));
          }}
        >
          {/* Lets password managers pair the password with the account. */}
          <input type="email" name="username" autoComplete="username" value={state.email} readOnly hidden />
          <div className="field">
            <label htmlFor="login-password">{t('login.credentials.password')}</label>
            <input
              id="login-password"
              type="password"
              name="password"
              autoComplete="current-password"
              autoFocus={!passkeyFirst}
              required
              disabled={busy}
              value={password}
              onChange={(event) => setPassword(event.target.value)}
            />
          </div>
          <label className="checkbox">
            <input type="checkbox" checked={remember} disabled={busy} onChange={(event) => setRemember(event.target.checked)} />
            {t('login.credentials.remember')}
          </label>
          <Button loading={state.pending} disabled={!password || passkeyPending}>
            {t('login.credentials.submit')}
          </Button>
          <Link
            href={resetPasswordHref(search)}
            className="text-link"
            onClick={() => sessionStorage.setItem(RESET_EMAIL_KEY, state.email)}
          >
            {t('login.credentials.forgot')}
          </Link>
        </form>
      )}
    </StepFrame>
  );
}

/**
 * An account without a password whose other ways in depend on the providers list: loading it, or
 * (it failed) a way to load it again instead of a password form that cannot work.
 */
function ProvidersUnknown({ failed, onRetry }: { failed: boolean; onRetry: () => void }) {
  const { t } = useTranslation();
  if (!failed) {
    return (
      <p className="page-loading" role="status">
        {t('app.loading')}
      </p>
    );
  }
  return (
    <>
      <ErrorAlert message={t('login.credentials.providers_failed')} />
      <Button type="button" variant="secondary" autoFocus onClick={onRetry}>
        {t('app.retry')}
      </Button>
    </>
  );
}
