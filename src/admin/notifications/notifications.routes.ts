import { Router, type RequestHandler } from 'express';
import type Provider from 'oidc-provider';
import { z } from 'zod';
import type { Context } from '../../context.ts';
import { validate } from '../../http/validate.ts';
import { idSchema } from '../admin.schemas.ts';
import { operatorOf, requireOperator } from '../operator-guard.ts';
import { accountForTenant, accountOfAccessToken } from './access-token.ts';
import { notificationsForMember, recentNotifications, sendNotification } from './notifications.service.ts';

/** Spec section 5: "Notification send requires a non-empty message". */
const notificationBody = z.strictObject({
  message: z.string().trim().min(1, 'Message is required').max(2000),
  admins_only: z.boolean().default(false),
  tenants: z.array(idSchema).max(1000).default([]),
  popup: z.boolean().default(false),
  new_functionality: z.boolean().default(false),
});

const tenantQuery = z.object({ tenant: idSchema });

/** Operators send notifications; tenants' apps read them for the person signed in to them. */
export function createNotificationsRouter(ctx: Context, provider: Provider): Router {
  const router = Router();
  const support = requireOperator(ctx, 'support');

  router.post('/api/notification/', support, validate({ body: notificationBody }), async (_req, res) => {
    res.status(201).json(await sendNotification(ctx, operatorOf(res), res.locals.body));
  });

  router.get('/api/notification/', support, async (_req, res) => {
    res.json(await recentNotifications(ctx));
  });

  const bearer: RequestHandler = async (req, res, next) => {
    res.locals.tokenHolder = await accountOfAccessToken(ctx, provider, req);
    next();
  };

  /** For tenants' apps: a Bearer access token of the person signed in to the app, not a console session. */
  router.get('/api/notifications', bearer, validate({ query: tenantQuery }), async (_req, res) => {
    const { tenant } = res.locals.query;
    res.json(await notificationsForMember(ctx, accountForTenant(res.locals.tokenHolder, tenant), tenant));
  });

  return router;
}
