import { Router } from 'express';
import { z } from 'zod';
import type { Context } from '../../context.ts';
import { validate } from '../../http/validate.ts';
import { clearProviderSessionCookie } from '../../oidc/provider.ts';
import { getPortalSession } from '../../session/portal-session.ts';
import { idSchema } from '../admin.schemas.ts';
import { operatorOf, requireOperator } from '../operator-guard.ts';
import { openHandOff, startImpersonation } from './impersonation.service.ts';

export const reasonMax = 500;

const impersonationBody = z
  .strictObject({
    tenant_id: idSchema,
    as: z.enum(['user', 'admin']),
    account_id: idSchema.optional(),
    reason: z.string().trim().min(1, 'A reason is required').max(reasonMax, `At most ${reasonMax} characters`),
  })
  .refine((body) => body.as === 'admin' || body.account_id !== undefined, {
    message: 'account_id is required to log in as a user',
    path: ['account_id'],
  });

/** A hand-off token: 32 random bytes, base64url. Anything else cannot be one. */
const handOffToken = /^[A-Za-z0-9_-]{43}$/;

/**
 * Operators log in as a user, or as a tenant's admin, to that tenant's app ("impersonation").
 * Only the admin role may. The API answers a one-time hand-off URL; the browser opens it.
 */
export function createImpersonationRouter(ctx: Context): Router {
  const router = Router();

  router.post('/api/impersonations', requireOperator(ctx, 'admin', { recentSignIn: true }), validate({ body: impersonationBody }), async (_req, res) => {
    res.status(201).json(await startImpersonation(ctx, operatorOf(res), res.locals.body));
  });

  router.get('/auth/impersonate/:token', async (req, res) => {
    const token = req.params.token;
    const result = handOffToken.test(token) ? await openHandOff(ctx, token, await getPortalSession(ctx, req)) : ({ ok: false, reason: 'expired' } as const);
    if (!result.ok) return res.redirect(303, `/admin?impersonation_error=${result.reason}`);
    // The tenant app's authorization must start a new provider session in this browser rather than
    // replace the operator's own: replacing it would log the operator out (and revoke their grants).
    clearProviderSessionCookie(res, ctx.config);
    res.redirect(303, result.location);
  });

  return router;
}
