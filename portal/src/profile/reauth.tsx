import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
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
 * A change refused with 403 reauthentication_required (sign-in older than 5 minutes) or 403
 * profile/mfa-required (an account with a second factor, and a sign-in that proved none): say why,
 * then send the person to /login with their email, where they sign in again and come back here.
 * For a second factor, /login?second_factor=1 asks for the code even on a remembered browser.
 */
export function useReauthentication(email: string): Reauthentication {
  const [, navigate] = useLocation();
  const [reason, setReason] = useState<ReauthReason | null>(null);
  useEffect(() => {
    if (!reason) return;
    const timer = window.setTimeout(() => navigate(reauthUrl(email, window.location.pathname, reason)), REAUTH_REDIRECT_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [reason, email, navigate]);
  const require = useCallback((next: ReauthReason = 'recent-sign-in') => setReason(next), []);
  return { required: reason !== null, reason: reason ?? 'recent-sign-in', require };
}

export function ReauthNotice({ email, reason }: { email: string; reason: ReauthReason }) {
  const { t } = useTranslation();
  return (
    <div className="alert alert-info" role="alert">
      <p className="reauth-text">{reason === 'second-factor' ? t('profile.reauth.second_factor_body') : t('profile.reauth.body')}</p>
      <a href={reauthUrl(email, window.location.pathname, reason)}>{t('profile.reauth.link')}</a>
    </div>
  );
}
