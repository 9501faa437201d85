import type { LoginSessionResponse } from '../api/types.ts';

export const SELECT_TENANT_PATH = '/login/select-tenant';
export const SHARING_PORTAL_PATH = '/auth/athena';

/**
 * Where a finished sign-in goes (spec section 2, Done), in this order:
 * 1. `return_to` in the query (a local path: /profile sends a person to sign in again and back),
 *    unless the sign-in belongs to an OAuth request (`interaction` or `client_id` in the query);
 * 2. an authorization request in the query itself (`client_id` and `response_type`, no
 *    `interaction`: a relying party linked to /login with its request) → `/oauth2/authorize` with
 *    the current query, which now finds the Nyckel session and answers the relying party. The
 *    server knows of no interaction then, so its `redirect_to` would lose the request;
 * 3. the server's `redirect_to` (an interaction to finish, or its choice of tenant selection or
 *    sharing portal) — only when same-origin, so a tampered answer cannot turn the login page
 *    into an open redirect;
 * 4. `client_id` in the query → `/oauth2/authorize` with the current query (`client_id` alone,
 *    as from /auth/athena, normally has the server's `redirect_to` before it);
 * 5. a stakeholder who is not a user → the sharing portal;
 * 6. otherwise the tenant selection.
 */
export function doneTarget(session: LoginSessionResponse, search: string, origin: string): string {
  const query = new URLSearchParams(search);
  const oauth = query.has('interaction') || query.has('client_id');
  const returnTo = oauth ? null : localPath(query.get('return_to'));
  if (returnTo) return returnTo;
  if (query.get('client_id') && query.get('response_type') && !query.has('interaction')) return `/oauth2/authorize?${query.toString()}`;
  const redirect = sameOriginPath(session.redirect_to, origin);
  if (redirect) return redirect;
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

/**
 * `return_to` only ever names a page of this site: one leading `/` and no second one or
 * backslash after it (`//evil.example` and `/\evil.example` are other hosts to a browser), no
 * control characters or whitespace. Anything else is ignored, never followed.
 */
export function localPath(target: string | null | undefined): string | null {
  if (!target || target.length > 512) return null;
  if (!target.startsWith('/') || target.startsWith('//') || target.startsWith('/\\')) return null;
  if (/[\\\s\u0000-\u001f\u007f]/.test(target)) return null;
  return target;
}
