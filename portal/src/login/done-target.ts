import type { LoginSessionResponse } from '../api/types.ts';

export const SELECT_TENANT_PATH = '/login/select-tenant';
export const SHARING_PORTAL_PATH = '/auth/athena';

/**
 * Where a finished sign-in goes (spec section 2, Done), in this order:
 * 1. the server's `redirect_to` (it finished an OAuth interaction) — only when same-origin, so a
 *    tampered answer cannot turn the login page into an open redirect;
 * 2. `client_id` in the query → `/oauth2/authorize` with the current query;
 * 3. a stakeholder who is not a user → the sharing portal;
 * 4. otherwise the tenant selection.
 */
export function doneTarget(session: LoginSessionResponse, search: string, origin: string): string {
  const redirect = sameOriginPath(session.redirect_to, origin);
  if (redirect) return redirect;
  const query = new URLSearchParams(search);
  if (query.get('client_id')) return `/oauth2/authorize?${query.toString()}`;
  if (session.is_stakeholder && !session.is_user) return SHARING_PORTAL_PATH;
  return SELECT_TENANT_PATH;
}

/** The path+query+hash of a URL on `origin`, or null for anything else. */
export function sameOriginPath(target: string | null | undefined, origin: string): string | null {
  if (!target) return null;
  let url: URL;
  try {
    url = new URL(target, origin);
  } catch {
    return null;
  }
  if (url.origin !== origin || !['http:', 'https:'].includes(url.protocol)) return null;
  return `${url.pathname}${url.search}${url.hash}`;
}
