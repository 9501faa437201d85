import type { Context } from '../context.ts';
import { maxLoginsPerBrowser } from './login-cookie.ts';
import { loadLoginSession, takeLoginSession, type LoginSession } from './login-session.ts';

/**
 * At a start, which of this browser's earlier sign-ins (its login cookie's ids, newest first) the
 * cookie keeps beside the new one: at most maxLoginsPerBrowser - 1, newest first.
 *
 * A start used to end the browser's previous sign-in, session and email code, as the cookie could
 * name only one: a second tab's start stranded the first tab. Now an earlier sign-in is ended only
 * - when it was for the same OAuth request (`interaction`): that request started again, in the
 *   tab that had it (back to Start, another address) or a copy of that tab. Only one sign-in can
 *   finish a request, and the newest is the one the person is looking at;
 * - when it falls off the end of the list: the browser could no longer name it, so it is ended
 *   now rather than left to its TTL with a live email code.
 * A sign-in for another request (another application, another tab of the same one) or without one
 * (the portal's own) goes on. Ids whose sign-in is already gone (finished in a way that did not
 * reach this cookie, expired, ended by a password reset) are dropped first, so they never push a
 * live one out.
 *
 * Keeping several gives a guesser nothing: any client could always hold one sign-in per cookie
 * jar, as many jars as it liked. Guessing codes and passwords is held by the per-email budget and
 * the lockout, which count per address, not per sign-in.
 */
export async function keepEarlierLogins(ctx: Context, earlierIds: readonly string[], query: Record<string, string>): Promise<string[]> {
  if (earlierIds.length === 0) return [];
  const loaded = await Promise.all(earlierIds.map((id) => loadLoginSession(ctx, id)));
  const live = loaded.filter((session): session is LoginSession => session !== null);
  const sameRequest = (session: LoginSession) => query.interaction !== undefined && session.query.interaction === query.interaction;
  const kept = live.filter((session) => !sameRequest(session)).slice(0, maxLoginsPerBrowser - 1);
  const ended = live.filter((session) => !kept.includes(session));
  await Promise.all(ended.map((session) => takeLoginSession(ctx, session.id)));
  return kept.map((session) => session.id);
}
