import { Router, type Request, type Response } from 'express';
import type Provider from 'oidc-provider';
import { finishImpersonation, takePendingImpersonation } from '../admin/impersonation/impersonation.oidc.ts';
import type { Context } from '../context.ts';
import { isUnavailable } from '../http/error-handler.ts';
import { rateLimitsFor } from '../http/rate-limit.ts';
import { getPortalSession, linkOidcSession, type PortalSessionWithId } from '../session/portal-session.ts';
import { acrOf } from './acr.ts';
import { namesSomeoneElse, nextStep, pendingImpersonation, sessionSatisfies, type Details } from './interaction-decision.ts';
import { nyckelResultKey } from './portal-session-check.ts';
import { tokenTtl } from './provider.ts';
import { noKnownScopeResult } from './scope-prompt.ts';
import { uiLanguage } from './ui-locales.ts';

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

/** The portal session (id, '' for none) the browser had when this interaction sent it to /login. */
const signedInBefore = (uid: string) => `interaction:${uid}:signed-in-before`;

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
