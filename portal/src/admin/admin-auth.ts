import { useCallback } from 'react';
import { useLocation } from 'wouter';
import { isApiError } from '../api/client.ts';
import { localPath } from '../login/done-target.ts';
import { SECOND_FACTOR_PARAM } from '../login/second-factor.ts';

/**
 * Spec section 2: /admin?from=<URL-encoded path + query> after a 401 or 403; `second_factor=1`
 * added when the refusal was operator/mfa-required, so the notice can say what sign-in is needed.
 */
export function adminSignInUrl(pathname: string, search: string, secondFactor = false): string {
  const query = search === '' || search.startsWith('?') ? search : `?${search}`;
  const flag = secondFactor ? `&${SECOND_FACTOR_PARAM}=1` : '';
  return `/admin?from=${encodeURIComponent(`${pathname}${query}`)}${flag}`;
}

/**
 * The notice's Sign in link: /login, then back to `from` (the console page the operator was on).
 * Without a second factor in the session, the password alone would be refused again: /login is
 * told to ask for the passkey or the authenticator code too.
 */
export function adminLoginUrl(from: string | null, secondFactor: boolean): string {
  const query = new URLSearchParams();
  if (secondFactor) query.set(SECOND_FACTOR_PARAM, '1');
  const back = localPath(safeAdminReturn(from));
  if (back) query.set('return_to', back);
  const search = query.toString();
  return search ? `/login?${search}` : '/login';
}

/** The `from` value to return to, only when it is a console path (never an open redirect). */
export function safeAdminReturn(from: string | null): string | null {
  if (!from || !from.startsWith('/admin') || from.startsWith('//')) return null;
  return from;
}

/** 403 type: the operator signed in without a second factor in this session. */
export const MFA_REQUIRED = 'operator/mfa-required';

/** 403 type: the action needs a sign-in from the last 15 minutes (reset links, credential deletion, impersonation). */
export const REAUTHENTICATION_REQUIRED = 'operator/reauthentication-required';

/**
 * Whether a console call was refused for want of a (recent) sign-in with a second factor: either
 * way the operator signs in again with the passkey or the authenticator code, and comes back.
 */
export function needsSecondFactor(error: unknown): boolean {
  return isApiError(error) && error.status === 403 && (error.type === MFA_REQUIRED || error.type === REAUTHENTICATION_REQUIRED);
}

/**
 * What a failed console call means:
 * - `sign-in`: no operator session (401, or 403 on a read) → the /admin?from= notice;
 * - `forbidden`: a 403 on a change (`action`) from a signed-in operator whose role may not make it
 *   (e.g. `support` deleting a credential). Sending them to sign in again would not help, so the
 *   page says the action failed instead. A missing second factor, or a sign-in too old for the
 *   action, still means sign in again.
 * - `other`: the page's own failure message.
 */
export type ConsoleErrorKind = 'sign-in' | 'forbidden' | 'other';

export function consoleErrorKind(error: unknown, mode: 'read' | 'action' = 'read'): ConsoleErrorKind {
  if (!isApiError(error)) return 'other';
  if (error.status === 401) return 'sign-in';
  if (error.status !== 403) return 'other';
  return mode === 'action' && !needsSecondFactor(error) ? 'forbidden' : 'sign-in';
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
      navigate(`~${adminSignInUrl(window.location.pathname, window.location.search, needsSecondFactor(error))}`, { replace: true });
      return true;
    },
    [navigate],
  );
}
