import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'wouter';
import { deleteCredential } from '../api/client.ts';
import type { AvailableCredential } from '../api/types.ts';
import { ErrorAlert, Notice } from '../components/alert.tsx';
import { ConfirmPanel } from './confirm-panel.tsx';
import { TOTP_SETUP_PATH } from './profile-navigation.ts';
import { profileFailure } from './profile-errors.ts';
import { ReauthNotice, useReauthentication } from './reauth.tsx';
import { useSessionExpired } from './session-expired.ts';

/** `kept`: the server refused because an operator account must keep a second factor. */
type Outcome = 'deleted' | 'failed' | 'kept' | null;

interface TwoFactorSectionProps {
  email: string;
  credentials: readonly AvailableCredential[];
  /** After a change (or a failed one that may have half-happened): reload user info and devices. */
  onChanged: () => void;
}

/**
 * The two-factor switch. On → the setup page. Off → after a confirmation, DELETE of the account's
 * TOTP credential (normally one; every one if a merge is still pending). Re-register → setup page.
 */
export function TwoFactorSection({ email, credentials, onChanged }: TwoFactorSectionProps) {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const sessionExpired = useSessionExpired();
  const totp = credentials.filter((credential) => credential.type === 'totp');
  const on = totp.length > 0;
  const [confirming, setConfirming] = useState(false);
  const [pending, setPending] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const reauth = useReauthentication(email);
  const switchRef = useRef<HTMLInputElement>(null);
  // Focus goes back to the switch once the confirmation closes (after the re-render enables it).
  const [focusSwitch, setFocusSwitch] = useState(0);
  useEffect(() => {
    if (focusSwitch > 0) switchRef.current?.focus();
  }, [focusSwitch]);

  const toggle = () => {
    setOutcome(null);
    if (on) setConfirming(true);
    else navigate(TOTP_SETUP_PATH);
  };

  const cancel = () => {
    setConfirming(false);
    setFocusSwitch((n) => n + 1);
  };

  const turnOff = async () => {
    setPending(true);
    try {
      for (const credential of totp) await deleteCredential(credential.id);
      setOutcome('deleted');
      onChanged();
    } catch (error) {
      const failure = profileFailure(error);
      if (failure.kind === 'signed-out') return sessionExpired();
      if (failure.kind === 'reauth') reauth.require(failure.reason);
      else {
        setOutcome(failure.kind === 'rejected' && failure.type === 'credential/second-factor-required' ? 'kept' : 'failed');
        onChanged();
      }
    } finally {
      setPending(false);
      setConfirming(false);
      setFocusSwitch((n) => n + 1);
    }
  };

  return (
    <section className="profile-section" aria-labelledby="tfa-title">
      <h2 id="tfa-title">{t('profile.tfa.title')}</h2>
      <p className="muted" id="tfa-intro">
        {t('profile.tfa.intro')}
      </p>
      <div className="switch-row">
        <label className="switch">
          <input
            ref={switchRef}
            type="checkbox"
            role="switch"
            checked={on}
            aria-describedby="tfa-intro"
            disabled={pending || reauth.required}
            onChange={toggle}
          />
          <span className="switch-track" aria-hidden="true" />
          <span>{t('profile.tfa.switch')}</span>
        </label>
        <span className={on ? 'switch-state on' : 'switch-state'} aria-hidden="true">
          {on ? t('profile.tfa.on') : t('profile.tfa.off')}
        </span>
        {on && (
          <Link href={TOTP_SETUP_PATH} className="text-link">
            {t('profile.tfa.reregister')}
          </Link>
        )}
      </div>
      {confirming && (
        <ConfirmPanel
          title={t('profile.tfa.confirm_title')}
          body={t('profile.tfa.confirm_body')}
          confirmLabel={t('profile.tfa.confirm')}
          keepLabel={t('profile.tfa.keep')}
          pending={pending}
          onConfirm={() => void turnOff()}
          onCancel={cancel}
        />
      )}
      {reauth.required && <ReauthNotice email={email} reason={reauth.reason} />}
      {outcome === 'deleted' && <Notice message={t('success.credential_deleted')} />}
      {outcome === 'failed' && <ErrorAlert message={t('errors.failed_to_remove_auth_method')} />}
      {outcome === 'kept' && (
        <div className="alert alert-error" role="alert">
          <p className="reauth-text">{t('errors.failed_to_remove_auth_method')}</p>
          {t('profile.tfa.operator_required')}
        </div>
      )}
    </section>
  );
}
