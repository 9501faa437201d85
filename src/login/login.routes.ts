import { Router, type Request, type Response } from 'express';
import type { Context } from '../context.ts';
import { setAuthCookie } from '../http/cookies.ts';
import { limitByIp } from '../http/rate-limit.ts';
import { validate } from '../http/validate.ts';
import { portalSessionId } from '../session/portal-cookie.ts';
import { setPortalSessionCookie } from '../session/portal-session.ts';
import { dropFromLoginCookie, loginCookieIds, sameSessionId, setLoginCookie } from './login-cookie.ts';
import { takeLoginSession } from './login-session.ts';
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
  const ref = (req: Request, res: Response) => ({ cookieIds: loginCookieIds(req, ctx.config), sessionId: res.locals.body.session_id as string });

  /**
   * At Done the finished sign-in leaves the login cookie (the browser's others, in other tabs,
   * stay) and the portal session cookie (a new id) arrives, with the known-browser cookie;
   * "remember this device" sets the remembered-device cookie.
   */
  const send = (req: Request, res: Response, outcome: LoginOutcome) => {
    if (outcome.rememberedDeviceId) setAuthCookie(res, ctx.config, deviceCookie, outcome.rememberedDeviceId);
    if (outcome.knownBrowser) setKnownBrowserCookie(res, ctx.config, outcome.knownBrowser);
    if (outcome.portalSession) {
      setPortalSessionCookie(res, ctx.config, outcome.portalSession.id, outcome.portalSession.persistent);
      dropFromLoginCookie(req, res, ctx.config, outcome.answer.session_id);
    }
    res.json(outcome.answer);
  };

  router.post('/auth/login/start', limited, validate({ body: startBody, query: startQuery }), async (req, res) => {
    const { cookieIds, answer } = await startLogin(ctx, {
      email: res.locals.body.email,
      query: res.locals.query,
      earlierLoginIds: loginCookieIds(req, ctx.config),
      info: info(req),
    });
    setLoginCookie(res, ctx.config, cookieIds);
    res.json(answer);
  });

  router.post('/auth/login/verify-password', limited, validate({ body: verifyPasswordBody }), async (req, res) => {
    const { email, password, remember } = res.locals.body;
    send(req, res, await verifyPassword(ctx, ref(req, res), { email, password, remember: remember ?? false }, info(req)));
  });

  router.post('/auth/login/verify-otp', limited, validate({ body: verifyOtpBody }), async (req, res) => {
    const { email, otp } = res.locals.body;
    send(req, res, await verifyEmailCode(ctx, ref(req, res), { email, otp }, info(req)));
  });

  router.post('/auth/login/resend-otp', limited, validate({ body: sessionOnlyBody }), async (req, res) => {
    send(req, res, await resendEmailCode(ctx, ref(req, res), info(req)));
  });

  router.post('/auth/login/create-password', limited, validate({ body: createPasswordBody }), async (req, res) => {
    send(req, res, await createPassword(ctx, ref(req, res), res.locals.body.password, info(req)));
  });

  router.post('/auth/login/skip-create-password', limited, validate({ body: sessionOnlyBody }), async (req, res) => {
    send(req, res, await skipCreatePassword(ctx, ref(req, res), info(req)));
  });

  router.post('/auth/login/verify-mfa', limited, validate({ body: verifyMfaBody }), async (req, res) => {
    const { totp_code, remember } = res.locals.body;
    send(req, res, await verifyTotp(ctx, ref(req, res), { code: totp_code, remember: remember ?? false }, info(req)));
  });

  router.post('/auth/login/merge-mfa', limited, validate({ body: mergeMfaBody }), async (req, res) => {
    send(req, res, await mergeTotp(ctx, ref(req, res), res.locals.body.totp_code, info(req)));
  });

  /**
   * Cancel on the login page ends the sign-in here too, so a reload (on a shared computer, the
   * next person's) cannot resume it with the address already in. Only that sign-in leaves the
   * login cookie: another tab's goes on. A session that is not this browser's is left alone but
   * answered the same 204: the answer reveals nothing about it.
   */
  router.post('/auth/login/cancel', limited, validate({ body: sessionOnlyBody }), async (req, res) => {
    const { cookieIds, sessionId } = ref(req, res);
    if (sameSessionId(cookieIds, sessionId)) await takeLoginSession(ctx, sessionId);
    dropFromLoginCookie(req, res, ctx.config, sessionId);
    res.status(204).end();
  });

  /** A probe: a malformed or foreign session_id answers `session: null`, never 4xx. */
  const ping = async (req: Request, res: Response) => {
    const query = pingQuery.safeParse(req.query);
    res.json(
      await pingLogin(ctx, {
        cookieIds: loginCookieIds(req, ctx.config),
        sessionId: query.success ? query.data.session_id : '',
        portalSessionId: portalSessionId(ctx.config, req),
      }),
    );
  };
  router.get('/auth/login/ping', ping);
  router.post('/auth/login/ping', ping);

  router.use(createPasskeyLoginRouter(ctx, { limited, info, ref, send }));

  return router;
}
