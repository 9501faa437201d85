import { useCallback } from 'react';
import { useLocation } from 'wouter';
import { isApiError } from '../api/client.ts';

/** Spec section 2: /admin?from=<URL-encoded path + query> after a 401 or 403. */
export function adminSignInUrl(pathname: string, search: string): string {
  const query = search === '' || search.startsWith('?') ? search : `?${search}`;
  return `/admin?from=${encodeURIComponent(`${pathname}${query}`)}`;
}

/** The `from` value to return to, only when it is a console path (never an open redirect). */
export function safeAdminReturn(from: string | null): string | null {
  if (!from || !from.startsWith('/admin') || from.startsWith('//')) return null;
  return from;
}

/**
 * For /admin pages: `handle(error)` sends a 401/403 to the console sign-in notice and answers
 * true; any other error is left to the page (answers false).
 */
export function useAdminErrorHandler(): (error: unknown) => boolean {
  const [, navigate] = useLocation();
  return useCallback(
    (error: unknown) => {
      if (!isApiError(error) || (error.status !== 401 && error.status !== 403)) return false;
      navigate(`~${adminSignInUrl(window.location.pathname, window.location.search)}`, { replace: true });
      return true;
    },
    [navigate],
  );
}
