import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { reauthUrl } from './profile-errors.ts';

/** Long enough to read why the page leaves; the spec's other automatic redirects wait 3 s too. */
export const REAUTH_REDIRECT_DELAY_MS = 3000;

/**
 * A change refused with 403 reauthentication_required (sign-in older than 5 minutes): say why,
 * then send the person to /login with their email, where they sign in again and come back here.
 */
export function useReauthentication(email: string): { required: boolean; require: () => void } {
  const [, navigate] = useLocation();
  const [required, setRequired] = useState(false);
  useEffect(() => {
    if (!required) return;
    const timer = window.setTimeout(() => navigate(reauthUrl(email, window.location.pathname)), REAUTH_REDIRECT_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [required, email, navigate]);
  const require = useCallback(() => setRequired(true), []);
  return { required, require };
}

export function ReauthNotice({ email }: { email: string }) {
  const { t } = useTranslation();
  return (
    <div className="alert alert-info" role="alert">
      <p className="reauth-text">{t('profile.reauth.body')}</p>
      <a href={reauthUrl(email, window.location.pathname)}>{t('profile.reauth.link')}</a>
    </div>
  );
}
