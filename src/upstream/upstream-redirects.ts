import type { Context } from '../context.ts';
import { AppError } from '../http/app-error.ts';
import { dependencyOf, isUnavailable } from '../http/error-handler.ts';
import { countDependencyError } from '../observability/metrics.ts';
import type { LoginSession } from '../login/login-session.ts';
import { localPath, withParam } from './local-path.ts';
import { describe } from './upstream-client.ts';

/**
 * The parts of a login session's query /login needs to resume it: the OAuth hand-off, texts, and
 * `return_to`, which the portal follows at Done (portal/src/login/done-target.ts).
 */
const resumedQuery = ['client_id', 'interaction', 'type', 'lang', 'mode', 'return_to'];

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

/**
 * The login's `return_to`, followed at Done as the portal does after a password
 * (portal/src/login/done-target.ts): a local path only, and never for a sign-in that belongs to an
 * OAuth request, whose relying party is waiting for the answer.
 */
export function returnTo(session: Pick<LoginSession, 'query'>): string | null {
  const { query } = session;
  if (query.interaction !== undefined || query.client_id !== undefined) return null;
  return localPath(query.return_to);
}

/** Back to the profile page (a local path) with an error type for the portal to translate. */
export function profileUrl(from: string, error?: string): string {
  return error ? withParam(from, 'error', error) : from;
}

/**
 * The `error` a refused browser redirect carries: an AppError's type, or `service_unavailable`
 * while PostgreSQL or Redis cannot be reached (the portal shows it), since these routes answer a
 * page and never the error handler's JSON 503. Anything else is a bug and is thrown on.
 */
export function refusalType(ctx: Pick<Context, 'logger'>, error: unknown): string {
  if (error instanceof AppError) return error.type;
  if (!isUnavailable(error)) throw error;
  countDependencyError(dependencyOf(error));
  ctx.logger.error({ err: describe(error) }, 'dependency unavailable');
  return 'service_unavailable';
}
