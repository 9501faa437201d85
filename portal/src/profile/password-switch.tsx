import { useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { deleteCredential } from '../api/client.ts';
import type { AvailableCredential } from '../api/types.ts';
import { ErrorAlert, Notice } from '../components/alert.tsx';
import { useFocusBack } from '../components/use-focus-back.ts';
import { ConfirmPanel } from './confirm-panel.tsx';
import { requestPasswordSetupLink } from './profile-api.ts';
import { profileFailure } from './profile-errors.ts';
import { ReauthNotice, useReauthentication } from './reauth.tsx';
import { useSessionExpired } from './session-expired.ts';

type Outcome = 'deleted' | 'failed' | 'link-sent' | 'link-failed' | null;

interface PasswordSwitchProps {
  email: string;
  isUser: boolean;
  credentials: readonly AvailableCredential[];
  /** After a change (or a failed one): reload the user info. */
  onChanged: () => void;
}

/**
 * The email-password switch. A User account's password cannot be removed, so its switch is
 * disabled (spec). For a stakeholder: on → a set-password link is mailed (the switch turns on once
 * the password is set); off → after a confirmation the password credential is removed. Both need
 * a recent sign-in (403 reauthentication_required → /login and back).
 */
export function PasswordSwitch({ email, isUser, credentials, onChanged }: PasswordSwitchProps) {
  const { t } = useTranslation();
  const sessionExpired = useSessionExpired();
  const id = useId();
  const passwords = credentials.filter((credential) => credential.type === 'password');
  const on = passwords.length > 0;
  const [confirming, setConfirming] = useState(false);
  const [pending, setPending] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const reauth = useReauthentication(email);
  const switchRef = useRef<HTMLInputElement>(null);
  const [focusSwitch, setFocusSwitch] = useState(0);
  useEffect(() => {
    if (focusSwitch > 0) switchRef.current?.focus();
  }, [focusSwitch]);
  // Asking for the set-password link disables the switch, which drops the focus: it comes back
  // when the call ends, whether the link was sent or not.
  useFocusBack(pending, switchRef);

  const fail = (error: unknown, otherwise: Outcome) => {
    const failure = profileFailure(error);
    if (failure.kind === 'signed-out') sessionExpired();
    else if (failure.kind === 'reauth') reauth.require(failure.reason);
    else setOutcome(otherwise);
  };

  const turnOn = async () => {
    setPending(true);
    try {
      await requestPasswordSetupLink();
      setOutcome('link-sent');
    } catch (error) {
      fail(error, 'link-failed');
    } finally {
      setPending(false);
    }
  };

  const turnOff = async () => {
    setPending(true);
    try {
      for (const credential of passwords) await deleteCredential(credential.id);
      setOutcome('deleted');
    } catch (error) {
      fail(error, 'failed');
    } finally {
      onChanged();
      setPending(false);
      setConfirming(false);
      setFocusSwitch((n) => n + 1);
    }
  };

  const cancel = () => {
    setConfirming(false);
    setFocusSwitch((n) => n + 1);
  };

  const toggle = () => {
    setOutcome(null);
    if (on) setConfirming(true);
    else void turnOn();
  };

  const hintId = `${id}-hint`;
  return (
    <div className="method-switch">
      <div className="switch-row">
        <label className="switch">
          <input
            ref={switchRef}
            type="checkbox"
            role="switch"
            checked={on}
            aria-describedby={hintId}
            disabled={isUser || pending || confirming || reauth.required}
            onChange={toggle}
          />
          <span className="switch-track" aria-hidden="true" />
          <span>{t('profile.password.switch')}</span>
        </label>
        <span className={on ? 'switch-state on' : 'switch-state'} aria-hidden="true">
          {on ? t('profile.tfa.on') : t('profile.tfa.off')}
        </span>
      </div>
      <p className="muted field-hint" id={hintId}>
        {isUser ? t('profile.password.user_locked') : on ? t('profile.password.stakeholder_on') : t('profile.password.stakeholder_intro')}
      </p>
      {confirming && (
        <ConfirmPanel
          title={t('profile.password.confirm_title')}
          body={t('profile.password.confirm_body')}
          confirmLabel={t('profile.password.confirm')}
          keepLabel={t('profile.password.keep')}
          pending={pending}
          onConfirm={() => void turnOff()}
          onCancel={cancel}
        />
      )}
      {reauth.required && <ReauthNotice email={email} reason={reauth.reason} />}
      {outcome === 'deleted' && <Notice message={t('success.credential_deleted')} />}
      {outcome === 'link-sent' && <Notice message={t('profile.password.link_sent', { email })} />}
      <ErrorAlert message={outcome === 'failed' ? t('errors.failed_to_remove_auth_method') : outcome === 'link-failed' ? t('profile.password.link_failed') : null} />
    </div>
  );
}
