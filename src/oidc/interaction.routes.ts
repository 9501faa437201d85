import { Router, type Request, type Response } from 'express';
import type Provider from 'oidc-provider';
import {
  finishImpersonation,
  impersonatedSessionReason,
  pendingReason,
  takePendingImpersonation,
} from '../admin/impersonation/impersonation.oidc.ts';
import { peekPending, type Impersonation } from '../admin/impersonation/impersonation.store.ts';
import { findOperatorRole } from '../admin/operators.repository.ts';
import type { Context } from '../context.ts';
import { isUnavailable } from '../http/error-handler.ts';
import { rateLimitsFor } from '../http/rate-limit.ts';
import { acrOf } from './acr.ts';
import { nyckelResultKey, portalSessionReason } from './portal-session-check.ts';
import { noKnownScopePrompt, noKnownScopeResult } from './scope-prompt.ts';
import { tokenTtl } from './provider.ts';
import { uiLanguage } from './ui-locales.ts';
import { portalSessionId } from '../session/portal-cookie.ts';
import { getPortalSession, linkOidcSession, type PortalSessionWithId } from '../session/portal-session.ts';

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;


/**
 * The bridge between oidc-provider's interactions and Nyckel's own login. The provider sends the
 * browser to /auth/interaction/:uid; we either finish at once with the person's Nyckel session
 * (single sign-on) or send them to /login with the request's client_id, and /login's Done answer
 * brings them back to /auth/interaction/:uid/finish. First-party clients only: consent is granted
 * without a screen, for exactly the scopes and claims the client asked for.
 */
export function createInteractionRouter(ctx: Context, provider: Provider): Router {
  const router = Router();

  router.get('/auth/interaction/:uid', async (req, res) => {
    const details = await interactionOrNull(provider, req, res);
    if (!details || details.uid !== req.params.uid) return expired(res);
    const next = await nextStep(ctx, req, details, (clientId) => takePendingImpersonation(ctx, req, clientId));
    switch (next.step) {
      case 'no-known-scope':
        // Before any sign-in page: there would be nothing to grant after it (scope-prompt.ts).
        return provider.interactionFinished(req, res, noKnownScopeResult, { mergeWithLastSubmission: false });
      case 'impersonate': {
        // Its grant has no refresh token: the record lives as long as its code and access token.
        const ttl = tokenTtl.AuthorizationCode + tokenTtl.AccessToken;
        return finishImpersonation(ctx, provider, req, res, details, next.impersonation, ttl);
      }
      case 'sign-in':
        // A sign-in for this request must be another session than the one the browser has now.
        await ctx.store.set(signedInBefore(details.uid), next.session?.id ?? '', tokenTtl.Interaction);
        return res.redirect(303, loginUrl(details));
      case 'finish':
        await linkToPortalSession(ctx, details, next.session);
        return finish(provider, req, res, details, next.session);
    }
  });

  router.get('/auth/interaction/:uid/finish', async (req, res) => {
    const details = await interactionOrNull(provider, req, res);
    if (!details || details.uid !== req.params.uid) return expired(res);
    const session = await getPortalSession(ctx, req);
    const before = (await ctx.store.get(signedInBefore(details.uid))) ?? undefined;
    if (!session || (details.prompt.name === 'login' && !sessionSatisfies(session, details, ctx.now(), before))) {
      return res.redirect(303, loginUrl(details));
    }
    await linkToPortalSession(ctx, details, session);
    await finish(provider, req, res, details, session);
  });

  /**
   * Whether the interaction /login was sent with still lives in this browser, asked by /login
   * before it shows its form: a page reached again with Back, or from a bookmark, names one that
   * already finished or ended, and a password typed there would only end at expired(). The
   * interaction cookie's path is /auth/interaction/<uid>, so it reaches this route, and only the
   * browser that holds the interaction's own cookie hears `active`; any other is told `ended`,
   * as /auth/interaction/:uid/finish would tell it. A store outage is 503 (interactionOrNull).
   * `resumable` says that GET /auth/interaction/:uid would now finish it without /login (a
   * sign-in in another tab made a session that answers it): the same nextStep, with the hand-off
   * only looked at, so it is never true where that GET would send the browser back to /login.
   * Nor where it would answer the application `login_required` because the request names someone
   * else than the session's account: the page stays, for that person to sign in.
   */
  router.get('/auth/interaction/:uid/status', async (req, res) => {
    const details = await interactionOrNull(provider, req, res);
    if (details && details.uid === req.params.uid) {
      const next = await nextStep(ctx, req, details, (clientId) => pendingImpersonation(ctx, req, clientId));
      const resumable = next.step !== 'sign-in' && !(next.step === 'finish' && namesSomeoneElse(details, next.session));
      return res.json({ state: 'active', resumable });
    }
    const clientId = typeof req.query.client_id === 'string' ? req.query.client_id : '';
    const restart = clientId ? await restartUri(ctx, provider, clientId, req.ip) : undefined;
    res.json(restart ? { state: 'ended', restart_uri: restart } : { state: 'ended' });
  });

  return router;
}

/** What GET /auth/interaction/:uid does with the interaction in this browser now. */
type NextStep =
  | { step: 'no-known-scope' }
  | { step: 'impersonate'; impersonation: Impersonation }
  | { step: 'sign-in'; session: PortalSessionWithId | null }
  | { step: 'finish'; session: PortalSessionWithId | null };

/**
 * The one decision GET /auth/interaction/:uid makes, told also by the status route as
 * `resumable` (every step but sign-in). `handOff` finds the operator hand-off waiting for this
 * client: the GET takes it (single use), the status only looks (pendingImpersonation).
 */
async function nextStep(
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
async function pendingImpersonation(ctx: Context, req: Request, clientId: string): Promise<Impersonation | null> {
  const id = portalSessionId(ctx.config, req);
  const pending = id ? await peekPending(ctx, id) : null;
  if (!pending?.client_ids.includes(clientId)) return null;
  return (await findOperatorRole(ctx.db, pending.operator_id)) === 'admin' ? pending : null;
}

/**
 * Where the application would start a new sign-in: the client's registered `initiate_login_uri`
 * with `iss` (OpenID Connect Core 4, third-party initiated login), or undefined for an unknown
 * client, one without it, or one whose metadata oidc-provider refuses. Only that registered
 * metadata is told, never whether the client exists. Each made-up client_id is a database read
 * (the client adapter caches only known ones), so asking spends the per-IP sign-in budget.
 */
async function restartUri(ctx: Context, provider: Provider, clientId: string, ip: string | undefined): Promise<string | undefined> {
  await rateLimitsFor(ctx).consume('ip', ip ?? 'unknown');
  let initiateLoginUri: string | undefined;
  try {
    initiateLoginUri = (await provider.Client.find(clientId))?.initiateLoginUri;
  } catch (error) {
    if (isUnavailable(error)) throw error;
    return undefined;
  }
  if (typeof initiateLoginUri !== 'string') return undefined;
  const url = new URL(initiateLoginUri);
  url.searchParams.set('iss', ctx.config.issuer);
  return url.toString();
}

/** The profile lists and signs out the OP session's applications with the portal session of the same account. */
async function linkToPortalSession(ctx: Context, details: Details, session: PortalSessionWithId | null): Promise<void> {
  if (session && details.session?.uid && details.session.accountId === session.account_id) await linkOidcSession(ctx, session.id, details.session.uid);
}

async function interactionOrNull(provider: Provider, req: Request, res: Response): Promise<Details | null> {
  try {
    return await provider.interactionDetails(req, res);
  } catch (error) {
    // The store is down: 503, not a misleading "expired" that would restart the sign-in.
    if (isUnavailable(error)) throw error;
    // No interaction cookie, or the interaction expired: nothing to resume.
    return null;
  }
}

/**
 * The interaction finished or ended: /login says so with the same message (errors.interaction_expired)
 * as when it learns it on load (GET /auth/interaction/:uid/status), and the person goes back to the
 * application, which alone can make a new request.
 */
function expired(res: Response) {
  res.redirect(303, '/login?error=interaction_expired');
}

/** Reasons any live Nyckel session answers: they only say the provider session cannot answer by itself. */
const anySessionAnswers = new Set(['no_session', portalSessionReason, pendingReason, impersonatedSessionReason]);

/** The portal session (id, '' for none) the browser had when this interaction sent it to /login. */
const signedInBefore = (uid: string) => `interaction:${uid}:signed-in-before`;

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
function sessionSatisfies(session: PortalSessionWithId, details: Details, now: Date, stale: string | undefined): boolean {
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

function loginUrl(details: Details): string {
  const query = new URLSearchParams({ client_id: String(details.params.client_id), interaction: details.uid });
  const locale = uiLanguage(details.params.ui_locales);
  if (locale) query.set('lang', locale);
  // Pre-fills the address, and no more (OpenID Connect Core 3.1.2.1: a hint): `email` would start
  // the sign-in at once, mailing a code to whatever address a link named before anyone pressed a key.
  if (typeof details.params.login_hint === 'string' && details.params.login_hint.includes('@')) {
    query.set('login_hint', details.params.login_hint);
  }
  return `/login?${query}`;
}

async function finish(provider: Provider, req: Request, res: Response, details: Details, session: PortalSessionWithId | null) {
  if (details.prompt.name === 'login') {
    const amr = session!.amr;
    if (namesSomeoneElse(details, session)) {
      // The relying party asked for one person (id_token_hint, or the claims parameter's sub) and
      // another is signed in: it is told so, never handed a code for the wrong account.
      await provider.interactionFinished(
        req,
        res,
        { error: 'login_required', error_description: 'the signed-in account is not the one the request names' },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    await provider.interactionFinished(
      req,
      res,
      {
        login: {
          accountId: session!.account_id,
          amr,
          acr: acrOf(amr),
          ts: session!.auth_time,
          // The provider session's cookie lasts as the portal session's does: a sign-in without
          // "remember me" ends with the browser.
          remember: session!.persistent === true,
        },
        // Which Nyckel session answered: the resume counts only while it lives (portalSessionCheck).
        [nyckelResultKey]: { portal: session!.id },
      },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  if (details.prompt.name === 'consent') {
    const grantId = await grantRequested(provider, details);
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    return;
  }
  await provider.interactionFinished(
    req,
    res,
    { error: 'access_denied', error_description: 'unsupported interaction' },
    { mergeWithLastSubmission: false },
  );
}

/**
 * The subjects this authorization request demands, by the name of the login prompt's reason each
 * raises in oidc-provider: the claims parameter's `sub` value and the id_token_hint's `sub`.
 * oidc-provider verified the hint's signature when the request arrived, and the interaction's
 * parameters come from its own store, so only the payload is read here.
 */
/** A login prompt whose request names someone (id_token_hint, the claims parameter's sub) other than the session's account. */
function namesSomeoneElse(details: Details, session: PortalSessionWithId | null): boolean {
  return details.prompt.name === 'login' && [...requestedSubjects(details).values()].some((subject) => subject !== session?.account_id);
}

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

async function grantRequested(provider: Provider, details: Details): Promise<string> {
  const accountId = details.session?.accountId;
  const existing = details.grantId ? await provider.Grant.find(details.grantId) : undefined;
  const grant = existing ?? new provider.Grant({ accountId, clientId: String(details.params.client_id) });
  const prompt = details.prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  if (prompt.missingOIDCScope) grant.addOIDCScope(prompt.missingOIDCScope.join(' '));
  if (prompt.missingOIDCClaims) grant.addOIDCClaims(prompt.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(prompt.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(' '));
  }
  return grant.save();
}
