import { Router, type Request, type Response } from 'express';
import type { Context } from '../context.ts';
import { clearAuthCookie, setAuthCookie } from '../http/cookies.ts';
import type { RequestInfo } from '../login/login-finish.ts';
import { loginBrowserId, loginCookie } from '../login/login-session.ts';
import { knownBrowserCookie, setKnownBrowserCookie } from '../login/known-browser.ts';
import { deviceCookieId } from '../login/remembered-device.ts';
import { portalSessionId } from '../session/portal-cookie.ts';
import { getPortalSession, setPortalSessionCookie } from '../session/portal-session.ts';
import { completeCallback, type CallbackRedirect } from './upstream-callback.ts';
import { configuredProviders } from './upstream-providers.ts';
import { startFromLogin, startFromProfile, type StartRedirect } from './upstream-start.ts';
import { upstreamBindingCookie, upstreamCookie } from './upstream-transaction.ts';

/**
 * Google and Microsoft sign-in: browser redirects to the provider and back. Every answer is a 303
 * (errors too, as `?error=<type>` on /login or /profile, the per-IP budget's `too_many_requests`
 * and an outage's `service_unavailable` included), except the providers list. Hence nothing here
 * reads the store before the services, which turn its failures into that redirect.
 */
export function createUpstreamRouter(ctx: Context): Router {
  const router = Router();
  const query = (req: Request, name: string) => (typeof req.query[name] === 'string' ? (req.query[name] as string) : '');

  const toProvider = (res: Response, redirect: StartRedirect) => {
    if (redirect.upstreamCookie) setAuthCookie(res, ctx.config, upstreamBindingCookie, redirect.upstreamCookie);
    res.redirect(303, redirect.location);
  };

  /** The providers this server has configured, for the portal's buttons and switches. */
  router.get('/auth/providers', (_req, res) => {
    res.json({ providers: configuredProviders(ctx.config) });
  });

  router.get('/auth/login/oauth/:provider', async (req, res) => {
    const input = { provider: String(req.params.provider), browserId: loginBrowserId(req, ctx.config), sessionId: query(req, 'session_id'), ip: req.ip ?? 'unknown' };
    toProvider(res, await startFromLogin(ctx, { ...input, purpose: 'login' }));
  });

  router.get('/auth/login/link/oauth/:provider', async (req, res) => {
    const input = { provider: String(req.params.provider), browserId: loginBrowserId(req, ctx.config), sessionId: query(req, 'session_id'), ip: req.ip ?? 'unknown' };
    toProvider(res, await startFromLogin(ctx, { ...input, purpose: 'link-after-code' }));
  });

  router.get('/auth/link/oauth/:provider', async (req, res) => {
    const loadPortalSession = () => getPortalSession(ctx, req);
    toProvider(res, await startFromProfile(ctx, { provider: String(req.params.provider), from: req.query.from, loadPortalSession, ip: req.ip ?? 'unknown' }));
  });

  router.get('/auth/oauth/callback/:provider', async (req, res) => {
    const info: RequestInfo = {
      ip: req.ip ?? null,
      userAgent: req.get('user-agent') ?? null,
      acceptLanguage: req.get('accept-language'),
      portalSessionId: portalSessionId(ctx.config, req),
      deviceId: deviceCookieId(req, ctx.config),
      knownBrowser: knownBrowserCookie(req, ctx.config),
    };
    const rawQuery = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '';
    const redirect = await completeCallback(ctx, {
      provider: String(req.params.provider),
      query: new URLSearchParams(rawQuery),
      cookie: upstreamCookie(req, ctx.config),
      loginBrowserId: loginBrowserId(req, ctx.config),
      loadPortalSession: () => getPortalSession(ctx, req),
      info,
    });
    clearAuthCookie(res, ctx.config, upstreamBindingCookie);
    sendLoginCookies(res, redirect);
    res.redirect(303, redirect.location);
  });

  /** At Done the login cookie goes and the new portal session's and known-browser cookies arrive (as in login.routes.ts). */
  const sendLoginCookies = (res: Response, redirect: CallbackRedirect) => {
    const portal = redirect.login?.portalSession;
    if (!portal) return;
    setPortalSessionCookie(res, ctx.config, portal.id, portal.persistent);
    if (redirect.login?.knownBrowser) setKnownBrowserCookie(res, ctx.config, redirect.login.knownBrowser);
    clearAuthCookie(res, ctx.config, loginCookie);
  };

  return router;
}
