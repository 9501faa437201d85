import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { deleteCredential } from '../api/client.ts';
import type { AvailableCredential } from '../api/types.ts';
import { profileLinkUrl, type ConfiguredProvider } from '../api/upstream.ts';
import { ErrorAlert, Notice } from '../components/alert.tsx';
import { ConfirmPanel } from './confirm-panel.tsx';
import { useConfiguredProviders } from '../login/oauth-providers.ts';
import { providerOf, type Provider } from '../login/providers.ts';
import { profileFailure, reauthUrl } from './profile-errors.ts';
import { ReauthNotice, useReauthentication } from './reauth.tsx';
import { useSessionExpired } from './session-expired.ts';
import { describeSwitchMessage, upstreamArrival, type SwitchMessage } from './upstream-arrival.ts';

interface UpstreamSwitchesProps {
  credentials: readonly AvailableCredential[];
  /** For the sign-in-again round trip when a change needs a recent sign-in. */
  email: string;
  /** After an unlink: reload the profile (without it, the page reloads). */
  onChanged?: () => void;
}

/**
 * The profile's Google and Microsoft switches, for the providers the server has configured. On:
 * the browser goes to /auth/link/oauth/{provider}?from=/profile and comes back with `linked` or
 * `error` in the query. Off: after a confirmation, DELETE of that provider's credentials (the
 * server refuses to remove the last way to sign in; a sign-in older than 5 minutes goes through
 * /login and back first).
 */
export function UpstreamSwitches({ credentials, email, onChanged }: UpstreamSwitchesProps) {
  const { t } = useTranslation();
  const configured = useConfiguredProviders().list;
  const [message, setMessage] = useState<SwitchMessage | null>(() => upstreamArrival(window.location.search));
  const [confirming, setConfirming] = useState<Provider | null>(null);
  const [pending, setPending] = useState<Provider | null>(null);
  const sessionExpired = useSessionExpired();
  const reauth = useReauthentication(email);
  const switches = useRef(new Map<Provider, HTMLInputElement>());
  // Focus goes back to the switch once its confirmation closes (after the re-render enables it);
  // a new object each time, so the same switch gets it again.
  const [focusSwitch, setFocusSwitch] = useState<{ provider: Provider } | null>(null);
  useEffect(() => {
    if (focusSwitch) switches.current.get(focusSwitch.provider)?.focus();
  }, [focusSwitch]);

  // The arrival's `linked` / `error` are shown once, then dropped from the address.
  useEffect(() => {
    const url = new URL(window.location.href);
    if (!url.searchParams.has('linked') && !url.searchParams.has('error')) return;
    url.searchParams.delete('linked');
    url.searchParams.delete('error');
    window.history.replaceState(window.history.state, '', `${url.pathname}${url.search}${url.hash}`);
  }, []);

  if (!configured || configured.length === 0) return null;

  const link = (provider: Provider) => {
    setPending(provider);
    setMessage({ kind: 'notice', key: 'upstream.switches.redirecting', provider });
    window.location.assign(profileLinkUrl(provider, '/profile'));
  };

  const unlink = async (provider: Provider) => {
    setPending(provider);
    try {
      for (const credential of linkedTo(credentials, provider, configured)) await deleteCredential(credential.id);
      setMessage({ kind: 'notice', key: 'upstream.switches.unlinked', provider });
      (onChanged ?? (() => window.location.reload()))();
    } catch (error) {
      const failure = profileFailure(error);
      if (failure.kind === 'signed-out') return sessionExpired();
      if (failure.kind === 'reauth') return reauth.require(failure.reason);
      const last = failure.kind === 'rejected' && failure.type === 'credential/last-sign-in-method';
      setMessage({ kind: 'error', key: last ? 'upstream.switches.last_method' : 'errors.failed_to_remove_auth_method' });
    } finally {
      setPending(null);
      setConfirming(null);
      setFocusSwitch({ provider });
    }
  };

  const cancel = (provider: Provider) => {
    setConfirming(null);
    setFocusSwitch({ provider });
  };

  return (
    <div className="upstream-switches" aria-labelledby="upstream-title">
      <h3 id="upstream-title">{t('upstream.switches.title')}</h3>
      <p className="muted" id="upstream-intro">
        {t('upstream.switches.intro')}
      </p>
      {configured.map(({ id }) => {
        const on = linkedTo(credentials, id, configured).length > 0;
        return (
          <div key={id} className="switch-row">
            <label className="switch">
              <input
                ref={(element) => {
                  if (element) switches.current.set(id, element);
                  else switches.current.delete(id);
                }}
                type="checkbox"
                role="switch"
                checked={on}
                aria-describedby="upstream-intro"
                disabled={pending !== null || confirming !== null || reauth.required}
                onChange={() => {
                  setMessage(null);
                  if (on) setConfirming(id);
                  else link(id);
                }}
              />
              <span className="switch-track" aria-hidden="true" />
              <span>{t('upstream.switches.label', { provider: t(`provider.${id}`) })}</span>
            </label>
            <span className={on ? 'switch-state on' : 'switch-state'} aria-hidden="true">
              {on ? t('upstream.switches.on') : t('upstream.switches.off')}
            </span>
          </div>
        );
      })}
      {confirming && (
        <ConfirmPanel
          title={t('upstream.switches.confirm_title', { provider: t(`provider.${confirming}`) })}
          body={t('upstream.switches.confirm_body', { provider: t(`provider.${confirming}`) })}
          confirmLabel={t('upstream.switches.confirm')}
          keepLabel={t('upstream.switches.keep')}
          pending={pending !== null}
          onConfirm={() => void unlink(confirming)}
          onCancel={() => cancel(confirming)}
        />
      )}
      {reauth.required && <ReauthNotice email={email} reason={reauth.reason} />}
      {message?.kind === 'notice' && <Notice message={describeSwitchMessage(message, t)} />}
      {message?.kind === 'error' && !message.reauth && <ErrorAlert message={describeSwitchMessage(message, t)} />}
      {message?.reauth && (
        <div className="alert alert-info" role="alert">
          <p className="reauth-text">{describeSwitchMessage(message, t)}</p>
          <a href={reauthUrl(email)}>{t('profile.reauth.link')}</a>
        </div>
      )}
    </div>
  );
}

function linkedTo(credentials: readonly AvailableCredential[], provider: Provider, configured: readonly ConfiguredProvider[]) {
  return credentials.filter((credential) => providerOf(credential, configured) === provider);
}
