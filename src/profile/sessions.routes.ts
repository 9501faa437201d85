import { Router } from 'express';
import type Provider from 'oidc-provider';
import type { Context } from '../context.ts';
import { AppError } from '../http/app-error.ts';
import { clearAuthCookie } from '../http/cookies.ts';
import { loginCookie } from '../login/login-session.ts';
import { clearProviderSessionCookie } from '../oidc/provider.ts';
import { clearPortalSessionCookie, getPortalSession } from '../session/portal-session.ts';
import { requireJsonBody } from './json-body.ts';
import { setKnownBrowserCookie } from '../login/known-browser.ts';
import { sessionRequest, thisBrowser } from './request-info.ts';
import { listSessions, revokeApplication, signOutOthers, signOutSession, signOutThisBrowser } from './sessions.service.ts';
import { requireSignedIn } from './signed-in.ts';

/** A sign-out that found the session gone already (another tab's sign-out a moment earlier) is done all the same. */
function unlessNotFound(error: unknown): void {
  if (!(error instanceof AppError && error.status === 404)) throw error;
}

/**
 * The person's active sessions: Nyckel sign-ins and the applications holding tokens, each
 * signed out on its own, all but this one, or this one (portal session cookie; same-origin check).
 */
export function createSessionsRouter(ctx: Context, provider: Provider): Router {
  const router = Router();

  router.get('/api/accounts/sessions', async (req, res) => {
    res.json(await listSessions(ctx, provider, sessionRequest(req, await requireSignedIn(ctx, req), ctx.config)));
  });

  router.delete('/api/accounts/sessions/:id', async (req, res) => {
    await signOutSession(ctx, provider, sessionRequest(req, await requireSignedIn(ctx, req), ctx.config), String(req.params.id));
    res.status(204).end();
  });

  // "Sign out" in the profile and the console. Answers the same when the session had already
  // ended: the browser's cookies are cleared either way, the login cookie's too, which ends
  // whatever sign-in another tab still has in progress (the next person's at a shared computer
  // could finish it).
  router.post('/api/accounts/sessions/sign-out', requireJsonBody, async (req, res) => {
    const session = await getPortalSession(ctx, req);
    if (session) await signOutThisBrowser(ctx, provider, sessionRequest(req, session, ctx.config)).catch(unlessNotFound);
    clearPortalSessionCookie(res, ctx.config);
    clearProviderSessionCookie(res, ctx.config);
    clearAuthCookie(res, ctx.config, loginCookie);
    res.json({ status: 'signed_out' });
  });

  router.post('/api/accounts/sessions/sign-out-others', requireJsonBody, async (req, res) => {
    const request = { ...sessionRequest(req, await requireSignedIn(ctx, req), ctx.config), ...thisBrowser(req, ctx.config) };
    const { knownBrowser, ...counts } = await signOutOthers(ctx, provider, request);
    if (knownBrowser) setKnownBrowserCookie(res, ctx.config, knownBrowser);
    res.json(counts);
  });

  router.delete('/api/accounts/applications/:id', async (req, res) => {
    await revokeApplication(ctx, provider, sessionRequest(req, await requireSignedIn(ctx, req), ctx.config), String(req.params.id));
    res.status(204).end();
  });

  return router;
}
