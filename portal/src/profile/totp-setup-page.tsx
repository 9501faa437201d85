import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'wouter';
import { tfaActivate, tfaSetup } from '../api/client.ts';
import type { UserInfo } from '../api/types.ts';
import { ErrorAlert } from '../components/alert.tsx';
import { Button } from '../components/button.tsx';
import { PROFILE_PATH, type ProfileHistoryState } from './profile-navigation.ts';
import { activateOutcome, profileFailure, type ActivateOutcome } from './profile-errors.ts';
import { ProfileLayout } from './profile-layout.tsx';
import { ReauthNotice, useReauthentication } from './reauth.tsx';
import { SecretKey } from './secret-key.tsx';
import { useSessionExpired } from './session-expired.ts';
import { codeInput, qrCodeSrc, TOTP_CODE_LENGTH } from './totp-secret.ts';
import { useLoad } from './use-load.ts';
import { useUserInfo } from './use-userinfo.ts';

/** /profile/credentials/totp/setup: scan the QR code (or type the key), then activate with a code. */
export function TotpSetupPage() {
  const { t } = useTranslation();
  const info = useUserInfo();
  return (
    <ProfileLayout title={t('profile.totp_title')}>
      <section className="step profile">
        <h1 id="totp-title">{t('profile.totp_title')}</h1>
        {info.state.status === 'loading' && (
          <p className="page-loading" role="status">
            {t('app.loading')}
          </p>
        )}
        {info.state.status === 'failed' && <ErrorAlert message={t('profile.load_failed')} />}
        {info.state.status === 'ready' && <TotpSetup user={info.state.data} />}
        <Link href={PROFILE_PATH} className="text-link back-link">
          {t('profile.totp.back')}
        </Link>
      </section>
    </ProfileLayout>
  );
}

/** The pending secret, stamped with when it arrived: the QR image URL changes with each new one. */
async function loadSetup() {
  return { ...(await tfaSetup()), loadedAt: Date.now() };
}

function TotpSetup({ user }: { user: UserInfo }) {
  const { t } = useTranslation();
  const setup = useLoad(loadSetup);
  const hadTotp = (user.available_credentials ?? []).some((credential) => credential.type === 'totp');
  // A secret is only issued to a sign-in of the last 5 minutes (when the account has a second
  // factor, one that proved it): any other goes through /login and comes back to this page.
  const { require } = useReauthentication(user.email);
  const reauthReason = setup.state.status === 'failed' && setup.state.failure.kind === 'reauth' ? setup.state.failure.reason : null;
  useEffect(() => {
    if (reauthReason) require(reauthReason);
  }, [reauthReason, require]);

  if (setup.state.status === 'loading') {
    return (
      <p className="page-loading" role="status">
        {t('app.loading')}
      </p>
    );
  }
  if (reauthReason) return <ReauthNotice email={user.email} reason={reauthReason} />;
  if (setup.state.status === 'failed') {
    return (
      <>
        <ErrorAlert message={t('profile.totp.setup_failed')} />
        <Button type="button" variant="secondary" onClick={setup.reload}>
          {t('app.retry')}
        </Button>
      </>
    );
  }
  const { secret, otpauth_uri: uri, loadedAt } = setup.state.data;
  return (
    <>
      {hadTotp && (
        <p className="alert alert-warning" role="note">
          {t('profile.totp.reregister_warning')}
        </p>
      )}
      <ol className="setup-steps">
        <li>{t('profile.totp.step_install')}</li>
        <li>
          <p>{t('profile.totp.step_scan')}</p>
          <img key={loadedAt} className="qr-image" src={qrCodeSrc(loadedAt)} alt={t('profile.totp.qr_alt')} width={200} height={200} />
          <SecretKey secret={secret} />
          <p className="open-app">
            <a href={uri}>{t('profile.totp.open_app')}</a>
          </p>
        </li>
        <li>
          <p>{t('profile.totp.step_code')}</p>
          <ActivateForm email={user.email} onExpired={setup.reload} />
        </li>
      </ol>
    </>
  );
}

type Problem = Exclude<ActivateOutcome, 'signed-out' | 'reauth'> | 'length';

function problemText(problem: Problem, t: (key: string) => string): string {
  switch (problem) {
    case 'required':
      return t('errors.totp_code_required');
    case 'length':
      return t('profile.totp.code_length');
    case 'invalid':
      return t('errors.invalid_code');
    case 'expired':
      return t('profile.totp.expired');
    case 'too-many':
      return t('errors.too_many_requests');
    case 'network':
      return t('errors.network_error');
    case 'unexpected':
      return t('errors.unexpected_error');
  }
}

interface ActivateFormProps {
  email: string;
  /** 409 totp/no-pending: the pending secret expired; the page loads a new one (new QR). */
  onExpired: () => void;
}

function ActivateForm({ email, onExpired }: ActivateFormProps) {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const sessionExpired = useSessionExpired();
  const id = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [code, setCode] = useState('');
  const [problem, setProblem] = useState<Problem | null>(null);
  const [pending, setPending] = useState(false);
  const reauth = useReauthentication(email);

  // After a refused code, the field is empty again and has focus for the next try.
  const [attempts, setAttempts] = useState(0);
  useEffect(() => {
    if (attempts > 0) inputRef.current?.focus();
  }, [attempts]);

  const fail = (next: Problem) => {
    setProblem(next);
    setAttempts((n) => n + 1);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (code === '') return fail('required');
    if (code.length !== TOTP_CODE_LENGTH) return fail('length');
    setProblem(null);
    setPending(true);
    try {
      await tfaActivate({ totp_code: code });
      // Replaces the setup page in history: Back from the profile must not start a new setup.
      const state: ProfileHistoryState = { notice: 'totp-activated' };
      navigate(PROFILE_PATH, { replace: true, state });
      return;
    } catch (error) {
      const outcome = activateOutcome(error);
      if (outcome === 'signed-out') return sessionExpired();
      if (outcome === 'reauth') {
        // A second factor is asked for (profile/mfa-required): the sign-in must prove one.
        const failure = profileFailure(error);
        return reauth.require(failure.kind === 'reauth' ? failure.reason : undefined);
      }
      setCode('');
      fail(outcome);
      if (outcome === 'expired') onExpired();
    } finally {
      setPending(false);
    }
  };

  const problemId = `${id}-problem`;
  return (
    <form className="form" noValidate onSubmit={(event) => void submit(event)}>
      <div className="field">
        <label htmlFor={`${id}-code`}>{t('profile.totp.code')}</label>
        <input
          ref={inputRef}
          id={`${id}-code`}
          className="code-input"
          type="text"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9]*"
          spellCheck={false}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? problemId : `${id}-hint`}
          disabled={pending || reauth.required}
          value={code}
          onChange={(event) => setCode(codeInput(event.target.value))}
        />
        <p className="muted field-hint" id={`${id}-hint`}>
          {t('profile.totp.code_hint')}
        </p>
      </div>
      <ErrorAlert id={problemId} message={problem ? problemText(problem, t) : null} />
      {reauth.required && <ReauthNotice email={email} reason={reauth.reason} />}
      <Button loading={pending} disabled={reauth.required}>
        {t('profile.totp.activate')}
      </Button>
    </form>
  );
}
