import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { addPasskey, listPasskeys, passkeyProblem, passkeysSupported, PASSKEY_PROBLEM_KEYS, removePasskey, type Passkey } from '../api/passkeys.ts';
import { ErrorAlert } from '../components/alert.tsx';
import { Button } from '../components/button.tsx';
import { deviceName } from '../../../src/http/device-name.ts';
import { profileFailure } from './profile-errors.ts';
import { ReauthNotice, useReauthentication } from './reauth.tsx';
import { RELATIVE_TIME_KEYS, relativeTime } from './relative-time.ts';
import { useSessionExpired } from './session-expired.ts';
import { useLoad } from './use-load.ts';

/** The server's refusals this section explains; anything else is a generic failure. */
const REFUSALS: Record<string, string> = {
  'credential/last-sign-in-method': 'passkey.profile.last_method',
  'credential/second-factor-required': 'passkey.profile.operator_required',
};

type Message = { kind: 'notice' | 'error'; key: string } | null;

/** A request to focus a passkey's Remove button: a new object each time, so a repeat moves focus again. */
type FocusRemove = { id: string } | null;

/**
 * /profile's "Passkeys": the account's passkeys (name, added, last used), "Add a passkey" (the
 * browser's prompt; needs a sign-in within 5 minutes, else the re-authentication round trip) and
 * Remove with a confirmation. Without WebAuthn in this browser the list stays, adding does not.
 * Focus never falls back to the page: after adding it goes to the message (Add was disabled
 * meanwhile), after Keep, Escape or a failed removal back to that passkey's Remove, after a
 * removal to the heading.
 */
export function PasskeysSection({ email, onChanged }: { email: string; onChanged: () => void }) {
  const { t } = useTranslation();
  const sessionExpired = useSessionExpired();
  const passkeys = useLoad(listPasskeys);
  const reauth = useReauthentication(email);
  const [busy, setBusy] = useState<'adding' | string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [message, setMessage] = useState<Message>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const addRef = useRef<HTMLButtonElement>(null);
  const noticeRef = useRef<HTMLDivElement>(null);
  // After adding, once Add is enabled again: the message on success, else Add itself.
  const [focusAfterAdd, setFocusAfterAdd] = useState<{ target: 'notice' | 'add' } | null>(null);
  const [focusRemove, setFocusRemove] = useState<FocusRemove>(null);
  useEffect(() => {
    if (focusAfterAdd) (focusAfterAdd.target === 'notice' ? noticeRef : addRef).current?.focus();
  }, [focusAfterAdd]);
  const supported = passkeysSupported();
  const { state } = passkeys;

  /** The name a new passkey gets: the browser and system it is created on ("Chrome on macOS"). */
  const newPasskeyName = () => {
    const { browser, os } = deviceName(navigator.userAgent);
    const name = browser && os ? t('profile.devices.name', { browser, os }) : (browser ?? os ?? '');
    return name.slice(0, 64);
  };

  const fail = (error: unknown) => {
    const failure = profileFailure(error);
    if (failure.kind === 'signed-out') return sessionExpired();
    if (failure.kind === 'reauth') return reauth.require(failure.reason);
    const problem = passkeyProblem(error);
    if (problem) return setMessage({ kind: 'error', key: PASSKEY_PROBLEM_KEYS[problem] });
    if (failure.kind === 'rejected' && failure.status === 404) passkeys.reload();
    const refusal = failure.kind === 'rejected' ? REFUSALS[failure.type ?? ''] : undefined;
    setMessage({ kind: 'error', key: refusal ?? 'passkey.profile.failed' });
  };

  const add = async () => {
    setBusy('adding');
    setMessage(null);
    try {
      await addPasskey(newPasskeyName());
      setMessage({ kind: 'notice', key: 'passkey.profile.added' });
      setFocusAfterAdd({ target: 'notice' });
      passkeys.reload();
      onChanged();
    } catch (error) {
      fail(error);
      setFocusAfterAdd({ target: 'add' });
    } finally {
      setBusy(null);
    }
  };

  const remove = async (passkey: Passkey) => {
    setBusy(passkey.id);
    setMessage(null);
    try {
      await removePasskey(passkey.id);
      passkeys.update((data) => ({ passkeys: data.passkeys.filter((item) => item.id !== passkey.id) }));
      setMessage({ kind: 'notice', key: 'passkey.profile.removed' });
      onChanged();
      // Its row is gone: keep focus in the section.
      headingRef.current?.focus();
    } catch (error) {
      fail(error);
      setFocusRemove({ id: passkey.id });
    } finally {
      setBusy(null);
      setConfirming(null);
    }
  };

  const keep = (passkey: Passkey) => {
    setConfirming(null);
    setFocusRemove({ id: passkey.id });
  };

  return (
    <section className="profile-section" aria-labelledby="passkeys-title">
      <h2 id="passkeys-title" ref={headingRef} tabIndex={-1}>
        {t('passkey.profile.title')}
      </h2>
      <p className="muted">{t('passkey.profile.intro')}</p>
      {state.status === 'loading' && (
        <p className="page-loading" role="status">
          {t('app.loading')}
        </p>
      )}
      {state.status === 'failed' && (
        <>
          <ErrorAlert message={t('passkey.profile.load_failed')} />
          <Button type="button" variant="secondary" onClick={passkeys.reload}>
            {t('app.retry')}
          </Button>
        </>
      )}
      {state.status === 'ready' && state.data.passkeys.length === 0 && <p>{t('passkey.profile.empty')}</p>}
      {state.status === 'ready' && state.data.passkeys.length > 0 && (
        <ul className="profile-list">
          {state.data.passkeys.map((passkey) => (
            <PasskeyItem
              key={passkey.id}
              passkey={passkey}
              confirming={confirming === passkey.id}
              pending={busy === passkey.id}
              disabled={busy !== null || reauth.required}
              onRemove={() => setConfirming(passkey.id)}
              focusRequest={focusRemove?.id === passkey.id ? focusRemove : null}
              onConfirm={() => void remove(passkey)}
              onCancel={() => keep(passkey)}
            />
          ))}
        </ul>
      )}
      {supported ? (
        <div className="profile-actions">
          <Button ref={addRef} type="button" loading={busy === 'adding'} disabled={busy !== null || reauth.required} onClick={() => void add()}>
            {t('passkey.profile.add')}
          </Button>
        </div>
      ) : (
        <p className="muted">{t('passkey.profile.unsupported')}</p>
      )}
      {reauth.required && <ReauthNotice email={email} reason={reauth.reason} />}
      {message?.kind === 'notice' && (
        // A Notice that can take focus.
        <div ref={noticeRef} className="alert alert-info" role="status" tabIndex={-1}>
          {t(message.key)}
        </div>
      )}
      {message?.kind === 'error' && <ErrorAlert message={t(message.key)} />}
    </section>
  );
}

interface PasskeyItemProps {
  passkey: Passkey;
  confirming: boolean;
  pending: boolean;
  disabled: boolean;
  /** Set (a new object) when focus should go to this passkey's Remove, once it is back in place of the confirmation. */
  focusRequest: FocusRemove;
  onRemove: () => void;
  onConfirm: () => void;
  onCancel: () => void;
}

function PasskeyItem({ passkey, confirming, pending, disabled, focusRequest, onRemove, onConfirm, onCancel }: PasskeyItemProps) {
  const { t, i18n } = useTranslation();
  const removeRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (focusRequest) removeRef.current?.focus();
  }, [focusRequest]);
  const used = relativeTime(passkey.last_used_at, new Date());
  const added = new Date(passkey.created_at).toLocaleDateString(i18n.language, { year: 'numeric', month: 'short', day: 'numeric' });
  return (
    <li className="profile-item">
      <div className="item-main">
        <span className="item-name">{passkey.name}</span>
        <span className="muted">
          {t('passkey.profile.added_on', { date: added })} ·{' '}
          {used ? t('passkey.profile.last_used', { when: t(RELATIVE_TIME_KEYS[used.unit], { count: used.count }) }) : t('passkey.profile.never_used')}
        </span>
      </div>
      {confirming ? (
        <div
          className="profile-actions"
          role="group"
          aria-labelledby={`confirm-${passkey.id}`}
          onKeyDown={(event) => {
            if (event.key === 'Escape' && !pending) onCancel();
          }}
        >
          <span className="confirm-title" id={`confirm-${passkey.id}`}>
            {t('passkey.profile.confirm', { name: passkey.name })}
          </span>
          <Button type="button" className="btn-danger" loading={pending} autoFocus onClick={onConfirm}>
            {t('passkey.profile.remove')}
            <span className="visually-hidden"> {passkey.name}</span>
          </Button>
          <Button type="button" variant="secondary" disabled={pending} onClick={onCancel}>
            {t('passkey.profile.keep')}
          </Button>
        </div>
      ) : (
        <Button ref={removeRef} type="button" variant="secondary" disabled={disabled} onClick={onRemove}>
          {t('passkey.profile.remove')}
          <span className="visually-hidden"> {passkey.name}</span>
        </Button>
      )}
    </li>
  );
}
