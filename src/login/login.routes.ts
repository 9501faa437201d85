import { Router, type Request, type Response } from 'express';
import type { Context } from '../context.ts';
import { clearAuthCookie, setAuthCookie } from '../http/cookies.ts';
import { limitByIp } from '../http/rate-limit.ts';
import { validate } from '../http/validate.ts';
import { portalSessionId } from '../session/portal-cookie.ts';
import { setPortalSessionCookie } from '../session/portal-session.ts';
import { loadOwnLoginSession, loginBrowserId, loginCookie, newBrowserId, takeLoginSession } from './login-session.ts';
import {
  createPassword,
  pingLogin,
  resendEmailCode,
  skipCreatePassword,
  startLogin,
  verifyEmailCode,
  verifyPassword,
  type LoginOutcome,
  type RequestInfo,
} from './login.service.ts';
import {
  createPasswordBody,
  mergeMfaBody,
  pingQuery,
  sessionOnlyBody,
  startBody,
  startQuery,
  verifyMfaBody,
  verifyOtpBody,
  verifyPasswordBody,
} from './login.schemas.ts';
import { knownBrowserCookie, setKnownBrowserCookie } from './known-browser.ts';
import { deviceCookie, deviceCookieId } from './remembered-device.ts';
import { mergeTotp, verifyTotp } from './second-factor.service.ts';
import { createPasskeyLoginRouter } from './passkey-login.routes.ts';

/** The sign-in API under /auth/login (mounted on the api router: JSON, cookies, same-origin check). */
export function createLoginRouter(ctx: Context): Router {
  const router = Router();
  const limited = limitByIp(ctx);
  const info = (req: Request): RequestInfo => ({
    ip: req.ip ?? null,
    userAgent: req.get('user-agent') ?? null,
    acceptLanguage: req.get('accept-language'),
    portalSessionId: portalSessionId(ctx.config, req),
    deviceId: deviceCookieId(req, ctx.config),
    knownBrowser: knownBrowserCookie(req, ctx.config),
  });
  const ref = (req: Request, res: Response) => ({ browserId: loginBrowserId(req, ctx.config), sessionId: res.locals.body.session_id as string });

  /**
   * At Done the login cookie goes, ending the browser's other sign-ins in progress, and the portal
   * session cookie (a new id) arrives, with the known-browser cookie; "remember this device" sets
   * the remembered-device cookie.
   */
  const send = (res: Response, outcome: LoginOutcome) => {
    if (outcome.rememberedDeviceId) setAuthCookie(res, ctx.config, deviceCookie, outcome.rememberedDeviceId);
    if (outcome.knownBrowser) setKnownBrowserCookie(res, ctx.config, outcome.knownBrowser);
    if (outcome.portalSession) {
      setPortalSessionCookie(res, ctx.config, outcome.portalSession.id, outcome.portalSession.persistent);
      clearAuthCookie(res, ctx.config, loginCookie);
    }
    res.json(outcome.answer);
  };

  // The browser keeps its id while it has one: the sign-ins of its other tabs go on.
  router.post('/auth/login/start', limited, validate({ body: startBody, query: startQuery }), async (req, res) => {
    const browserId = loginBrowserId(req, ctx.config) ?? newBrowserId();
    const answer = await startLogin(ctx, { email: res.locals.body.email, query: res.locals.query, browserId, info: info(req) });
    setAuthCookie(res, ctx.config, loginCookie, browserId);
    res.json(answer);
  });

  router.post('/auth/login/verify-password', limited, validate({ body: verifyPasswordBody }), async (req, res) => {
    const { email, password, remember } = res.locals.body;
    send(res, await verifyPassword(ctx, ref(req, res), { email, password, remember: remember ?? false }, info(req)));
  });

  router.post('/auth/login/verify-otp', limited, validate({ body: verifyOtpBody }), async (req, res) => {
    const { email, otp } = res.locals.body;
    send(res, await verifyEmailCode(ctx, ref(req, res), { email, otp }, info(req)));
  });

  router.post('/auth/login/resend-otp', limited, validate({ body: sessionOnlyBody }), async (req, res) => {
    send(res, await resendEmailCode(ctx, ref(req, res), info(req)));
  });

  router.post('/auth/login/create-password', limited, validate({ body: createPasswordBody }), async (req, res) => {
    send(res, await createPassword(ctx, ref(req, res), res.locals.body.password, info(req)));
  });

  router.post('/auth/login/skip-create-password', limited, validate({ body: sessionOnlyBody }), async (req, res) => {
    send(res, await skipCreatePassword(ctx, ref(req, res), info(req)));
  });

  router.post('/auth/login/verify-mfa', limited, validate({ body: verifyMfaBody }), async (req, res) => {
    const { totp_code, remember } = res.locals.body;
    send(res, await verifyTotp(ctx, ref(req, res), { code: totp_code, remember: remember ?? false }, info(req)));
  });

  router.post('/auth/login/merge-mfa', limited, validate({ body: mergeMfaBody }), async (req, res) => {
    send(res, await mergeTotp(ctx, ref(req, res), res.locals.body.totp_code, info(req)));
  });

  /**
   * Cancel on the login page ends the sign-in here too, so a reload (on a shared computer, the
   * next person's) cannot resume it with the address already in. A session that is not this
   * browser's is left alone but answered the same 204: the answer reveals nothing about it. The
   * login cookie stays: the browser's sign-ins in other tabs go on.
   */
  router.post('/auth/login/cancel', limited, validate({ body: sessionOnlyBody }), async (req, res) => {
    const { browserId, sessionId } = ref(req, res);
    if (await loadOwnLoginSession(ctx, browserId, sessionId)) await takeLoginSession(ctx, sessionId);
    res.status(204).end();
  });

  /** A probe: a malformed or foreign session_id answers `session: null`, never 4xx. */
  const ping = async (req: Request, res: Response) => {
    const query = pingQuery.safeParse(req.query);
    res.json(
      await pingLogin(ctx, {
        browserId: loginBrowserId(req, ctx.config),
        sessionId: query.success ? query.data.session_id : '',
        request: query.success ? { interaction: query.data.interaction, return_to: query.data.return_to } : {},
        portalSessionId: portalSessionId(ctx.config, req),
      }),
    );
  };
  router.get('/auth/login/ping', ping);
  router.post('/auth/login/ping', ping);

  router.use(createPasskeyLoginRouter(ctx, { limited, info, ref, send }));

  return router;
}
