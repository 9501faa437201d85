import { Router } from 'express';
import type Provider from 'oidc-provider';
import type { Context } from '../context.ts';
import { createAdminAccountsRouter } from './accounts/accounts.routes.ts';
import { createAuditRouter } from './audit/audit.routes.ts';
import { createInvoiceRouter } from './invoice/invoice.routes.ts';
import { createNotificationsRouter } from './notifications/notifications.routes.ts';
import { createOperatorRouter } from './operator.routes.ts';
import { createAdminTenantsRouter } from './tenants/tenants.routes.ts';
import { createTokensRouter } from './tokens/tokens.routes.ts';

/**
 * The operator API under /api (spec section 7), each route behind requireOperator with the role it
 * needs, plus the notifications read by tenants' apps with a Bearer access token. Mounted on the
 * JSON api router of app.ts (body parsing, cookies, same-origin check).
 */
export function createAdminRouter(ctx: Context, provider: Provider): Router {
  return Router().use(
    createOperatorRouter(ctx),
    createAdminAccountsRouter(ctx, provider),
    createAdminTenantsRouter(ctx),
    createInvoiceRouter(ctx),
    createNotificationsRouter(ctx, provider),
    createTokensRouter(ctx, provider),
    createAuditRouter(ctx),
  );
}
