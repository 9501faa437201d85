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

/** 403 type: the operator signed in without a second factor in this session. */
export const MFA_REQUIRED = 'operator/mfa-required';

/**
 * What a failed console call means:
 * - `sign-in`: no operator session (401, or 403 on a read) → the /admin?from= notice;
 * - `forbidden`: a 403 on a change (`action`) from a signed-in operator whose role may not make it
 *   (e.g. `support` deleting a credential). Sending them to sign in again would not help, so the
 *   page says the action failed instead. A missing second factor still means sign in again.
 * - `other`: the page's own failure message.
 */
export type ConsoleErrorKind = 'sign-in' | 'forbidden' | 'other';

export function consoleErrorKind(error: unknown, mode: 'read' | 'action' = 'read'): ConsoleErrorKind {
  if (!isApiError(error)) return 'other';
  if (error.status === 401) return 'sign-in';
  if (error.status !== 403) return 'other';
  return mode === 'action' && error.type !== MFA_REQUIRED ? 'forbidden' : 'sign-in';
}

/**
 * For /admin pages: `handle(error)` sends a 401/403 to the console sign-in notice and answers
 * true; any other error is left to the page (answers false). `handle(error, 'action')` for
 * changes: a role refusal is left to the page too (see consoleErrorKind).
 */
export function useAdminErrorHandler(): (error: unknown, mode?: 'read' | 'action') => boolean {
  const [, navigate] = useLocation();
  return useCallback(
    (error: unknown, mode: 'read' | 'action' = 'read') => {
      if (consoleErrorKind(error, mode) !== 'sign-in') return false;
      navigate(`~${adminSignInUrl(window.location.pathname, window.location.search)}`, { replace: true });
      return true;
    },
    [navigate],
  );
}
