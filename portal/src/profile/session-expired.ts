import { useCallback } from 'react';
import { useLocation } from 'wouter';
import { sessionExpiredUrl } from './profile-errors.ts';

/**
 * For a signed-out answer (401) to a profile call: to /login, which says the session expired and
 * brings the person back to this page once they are signed in again.
 */
export function useSessionExpired(): () => void {
  const [, navigate] = useLocation();
  return useCallback(() => navigate(sessionExpiredUrl(window.location.pathname + window.location.search), { replace: true }), [navigate]);
}
