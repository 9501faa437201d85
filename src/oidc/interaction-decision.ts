import type { Request } from 'express';
import type Provider from 'oidc-provider';
import { impersonatedSessionReason, pendingReason } from '../admin/impersonation/impersonation.oidc.ts';
import { peekPending, type Impersonation } from '../admin/impersonation/impersonation.store.ts';
import { findOperatorRole } from '../admin/operators.repository.ts';
import type { Context } from '../context.ts';
import { portalSessionId } from '../session/portal-cookie.ts';
import { getPortalSession, type PortalSessionWithId } from '../session/portal-session.ts';
import { portalSessionReason } from './portal-session-check.ts';
import { noKnownScopePrompt } from './scope-prompt.ts';

/**
 * What an application's sign-in request (an oidc-provider interaction) needs from this browser
 * now: whether its Nyckel session answers it (single sign-on), or the person must sign in at
 * /login. GET /auth/interaction/:uid acts on it, and its status route tells /login
 * (interaction.routes.ts).
 */

export type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

/** What GET /auth/interaction/:uid does with the interaction in this browser now. */
export type NextStep =
  | { step: 'no-known-scope' }
  | { step: 'impersonate'; impersonation: Impersonation }
  | { step: 'sign-in'; session: PortalSessionWithId | null }
  | { step: 'finish'; session: PortalSessionWithId | null };

/**
 * The one decision GET /auth/interaction/:uid makes, told also by the status route as
 * `resumable` (every step but sign-in). `handOff` finds the operator hand-off waiting for this
 * client: the GET takes it (single use), the status only looks (pendingImpersonation).
 */
export async function nextStep(
  ctx: Context,
  req: Request,
  details: Details,
  handOff: (clientId: string) => Promise<Impersonation | null>,
): Promise<NextStep> {
  if (details.prompt.name === noKnownScopePrompt) return { step: 'no-known-scope' };
  if (details.prompt.name === 'login' && details.prompt.reasons.includes(pendingReason)) {
    // An operator's hand-off (src/admin/impersonation) finishes as the person, never with their session.
    const impersonation = await handOff(String(details.params.client_id));
    if (impersonation) return { step: 'impersonate', impersonation };
  }
  const session = await getPortalSession(ctx, req);
  // Passing the current session as the stale one: a request demanding a sign-in of its own
  // (prompt=login) is never answered here by a session that already exists.
  if (details.prompt.name === 'login' && !(session && sessionSatisfies(session, details, ctx.now(), session.id))) {
    return { step: 'sign-in', session };
  }
  return { step: 'finish', session };
}

/**
 * takePendingImpersonation without taking: the hand-off the GET would take now, for the status
 * route, which must not spend it.
 */
export async function pendingImpersonation(ctx: Context, req: Request, clientId: string): Promise<Impersonation | null> {
  const id = portalSessionId(ctx.config, req);
  const pending = id ? await peekPending(ctx, id) : null;
  if (!pending?.client_ids.includes(clientId)) return null;
  return (await findOperatorRole(ctx.db, pending.operator_id)) === 'admin' ? pending : null;
}

/** Reasons any live Nyckel session answers: they only say the provider session cannot answer by itself. */
const anySessionAnswers = new Set(['no_session', portalSessionReason, pendingReason, impersonatedSessionReason]);

/**
 * Whether the Nyckel session may answer this login prompt. With only `no_session`, any session
 * does (SSO); likewise when the provider session no longer agrees with the Nyckel session, and
 * with the impersonation reasons, which only say that the provider session in this browser must
 * not answer by itself. `max_age` is met when the sign-in is recent enough.
 * `prompt=login` (max_age=0 too: oidc-provider turns it into prompt=login) and every other reason
 * demand a sign-in made for this request: after the authorization request began and, since
 * auth_time counts whole seconds, in another session than `stale`, the one the browser had when
 * it was sent to sign in (each sign-in at /login makes a new session). Without that, a session
 * signed in earlier in the same second would pass.
 */
export function sessionSatisfies(session: PortalSessionWithId, details: Details, now: Date, stale: string | undefined): boolean {
  // A request naming the signed-in person (id_token_hint, the claims parameter's sub) asks for
  // that person, not for a new sign-in: oidc-provider names the reason whenever its own session
  // cannot tell, as in a browser signed in only at /login.
  const named = requestedSubjects(details);
  const reasons = details.prompt.reasons.filter((r) => !anySessionAnswers.has(r) && named.get(r) !== session.account_id);
  if (reasons.length === 0) return true;
  if (reasons.every((r) => r === 'max_age')) {
    const maxAge = Number(details.params.max_age);
    return Number.isFinite(maxAge) && Math.floor(now.getTime() / 1000) - session.auth_time <= maxAge;
  }
  const started = typeof details.iat === 'number' ? details.iat : 0;
  return session.auth_time >= started && session.id !== stale;
}

/** A login prompt whose request names someone (id_token_hint, the claims parameter's sub) other than the session's account. */
export function namesSomeoneElse(details: Details, session: PortalSessionWithId | null): boolean {
  return details.prompt.name === 'login' && [...requestedSubjects(details).values()].some((subject) => subject !== session?.account_id);
}

/**
 * The subjects this authorization request demands, by the name of the login prompt's reason each
 * raises in oidc-provider: the claims parameter's `sub` value and the id_token_hint's `sub`.
 * oidc-provider verified the hint's signature when the request arrived, and the interaction's
 * parameters come from its own store, so only the payload is read here.
 */
function requestedSubjects(details: Details): Map<string, string> {
  const subjects = new Map<string, string>();
  const claims = details.params.claims;
  if (typeof claims === 'string') {
    const value = (parseJson(claims) as { id_token?: { sub?: { value?: unknown } } } | undefined)?.id_token?.sub?.value;
    if (typeof value === 'string') subjects.set('claims_id_token_sub_value', value);
  }
  const hint = details.params.id_token_hint;
  if (typeof hint === 'string') {
    const sub = (parseJson(Buffer.from(hint.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sub?: unknown } | undefined)?.sub;
    if (typeof sub === 'string') subjects.set('id_token_hint', sub);
  }
  return subjects;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
