import type { LoginSession } from '../login/login-session.ts';
import { withParam } from './local-path.ts';

/** The parts of a login session's query /login needs to resume it (the OAuth hand-off, texts). */
const resumedQuery = ['client_id', 'interaction', 'type', 'lang', 'mode'];

/**
 * Back to /login for a login session that continues: the portal pings `session_id` and shows the
 * step the server decided (MFA, or the same step with the error). Without a session, /login starts
 * over and shows the error.
 */
export function loginUrl(session: Pick<LoginSession, 'id' | 'query'> | null, error?: string): string {
  const query = new URLSearchParams();
  if (session) {
    for (const name of resumedQuery) {
      const value = session.query[name];
      if (value) query.set(name, value);
    }
    query.set('session_id', session.id);
  }
  if (error) query.set('error', error);
  const search = query.toString();
  return search ? `/login?${search}` : '/login';
}

/** Back to the profile page (a local path) with an error type for the portal to translate. */
export function profileUrl(from: string, error?: string): string {
  return error ? withParam(from, 'error', error) : from;
}
