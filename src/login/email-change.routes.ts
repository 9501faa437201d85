import { Router } from 'express';
import type Provider from 'oidc-provider';
import type { Context } from '../context.ts';
import { limitByIp } from '../http/rate-limit.ts';
import { validate } from '../http/validate.ts';
import { confirmEmailChangeBody } from './login.schemas.ts';
import { confirmEmailChange } from './email-change.service.ts';

/**
 * The confirmation of an operator's email change, from the link mailed to the new address. Public
 * (the person may have no way to sign in until it is done) and limited per IP as the reset
 * endpoints are: 32 random bytes are not guessed, but every try costs a store round trip.
 */
export function createEmailChangeRouter(ctx: Context, provider: Provider): Router {
  const router = Router();
  router.post('/auth/email-change/confirm', limitByIp(ctx), validate({ body: confirmEmailChangeBody }), async (req, res) => {
    const client = { ip: req.ip ?? null, userAgent: req.get('user-agent') ?? null };
    const { email } = await confirmEmailChange(ctx, provider, { token: res.locals.body.token, client });
    res.json({ status: 'changed', email });
  });
  return router;
}
