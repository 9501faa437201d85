import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { revokeDevice, tfaDevices } from '../api/client.ts';
import { reauthUrl, type ReauthReason } from './profile-errors.ts';

/** Long enough to read why the page leaves; the spec's other automatic redirects wait 3 s too. */
export const REAUTH_REDIRECT_DELAY_MS = 3000;

export interface Reauthentication {
  required: boolean;
  /** Why; `recent-sign-in` until `require` is called with another reason. */
  reason: ReauthReason;
  require: (reason?: ReauthReason) => void;
}

/**
 * Before a sign-in that must prove a second factor: this browser's remembered device is forgotten,
 * or /login would skip the authenticator code again and the change would be refused again, round
 * and round. The person may tick "Remember this device" again at the code. Best effort: should it
 * fail, the passkey still proves the second factor, and the login page says so.
 */
async function prepareSignIn(reason: ReauthReason): Promise<void> {
  if (reason !== 'second-factor') return;
  try {
    const current = (await tfaDevices()).devices.find((device) => device.current);
    if (current) await revokeDevice(current.id);
  } catch {
    // Nothing to undo: the sign-in goes ahead.
  }
}

/**
 * A change refused with 403 reauthentication_required (sign-in older than 5 minutes) or 403
 * profile/mfa-required (an account with a second factor, and a sign-in that proved none): say why,
 * then send the person to /login with their email, where they sign in again and come back here.
 */
export function useReauthentication(email: string): Reauthentication {
  const [, navigate] = useLocation();
  const [reason, setReason] = useState<ReauthReason | null>(null);
  useEffect(() => {
    if (!reason) return;
    let left = false;
    const ready = prepareSignIn(reason);
    const timer = window.setTimeout(() => {
      void ready.then(() => {
        if (!left) navigate(reauthUrl(email, window.location.pathname, reason));
      });
    }, REAUTH_REDIRECT_DELAY_MS);
    return () => {
      left = true;
      window.clearTimeout(timer);
    };
  }, [reason, email, navigate]);
  const require = useCallback((next: ReauthReason = 'recent-sign-in') => setReason(next), []);
  return { required: reason !== null, reason: reason ?? 'recent-sign-in', require };
}

export function ReauthNotice({ email, reason }: { email: string; reason: ReauthReason }) {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const href = reauthUrl(email, window.location.pathname, reason);
  return (
    <div className="alert alert-info" role="alert">
      <p className="reauth-text">{reason === 'second-factor' ? t('profile.reauth.second_factor_body') : t('profile.reauth.body')}</p>
      <a
        href={href}
        onClick={(event) => {
          if (reason !== 'second-factor' || event.ctrlKey || event.metaKey || event.shiftKey) return;
          event.preventDefault();
          void prepareSignIn(reason).then(() => navigate(href));
        }}
      >
        {t('profile.reauth.link')}
      </a>
    </div>
  );
}
