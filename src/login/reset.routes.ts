import { Router, type Request } from 'express';
import type Provider from 'oidc-provider';
import type { Context } from '../context.ts';
import { limitByIp } from '../http/rate-limit.ts';
import { validate } from '../http/validate.ts';
import { knownBrowserCookie } from './known-browser.ts';
import { checkTokenBody, confirmResetBody, resetRequestBody } from './login.schemas.ts';
import { checkResetToken, confirmPasswordReset, requestPasswordReset, type ClientInfo } from './reset.service.ts';

/** Password reset by emailed link, under /auth/reset (mounted on the api router). */
export function createResetRouter(ctx: Context, provider: Provider): Router {
  const router = Router();
  const limited = limitByIp(ctx);
  const client = (req: Request): ClientInfo => ({
    ip: req.ip ?? null,
    userAgent: req.get('user-agent') ?? null,
    acceptLanguage: req.get('accept-language'),
    knownBrowser: knownBrowserCookie(req, ctx.config),
  });

  /** Always `{status: "sent"}`: the answer never tells whether the address has an account. */
  router.post('/auth/reset/request', limited, validate({ body: resetRequestBody }), async (req, res) => {
    const { email, type } = res.locals.body;
    await requestPasswordReset(ctx, { email, type: type ?? undefined, client: client(req) });
    res.json({ status: 'sent' });
  });

  router.post('/auth/reset/check-token', limited, validate({ body: checkTokenBody }), async (_req, res) => {
    res.json(await checkResetToken(ctx, res.locals.body.token));
  });

  router.post('/auth/reset/confirm', limited, validate({ body: confirmResetBody }), async (req, res) => {
    const { token, password } = res.locals.body;
    res.json(await confirmPasswordReset(ctx, provider, { token, password, client: client(req) }));
  });

  return router;
}
