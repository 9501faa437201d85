import { Router } from 'express';
import type { Context } from '../context.ts';
import { findAccountById } from '../accounts/accounts.repository.ts';
import { errors } from '../http/app-error.ts';
import { getPortalSession } from '../session/portal-session.ts';
import { tenantActiveAt } from './tenant-activity.ts';

/**
 * After a sign-in without a client: the tenants the person may open, and the hand-off of
 * stakeholders to the sharing portal ("athena").
 */
export function createAvailableTenantsRouter(ctx: Context): Router {
  const router = Router();

  router.get('/auth/available-tenants', async (req, res) => {
    const session = await getPortalSession(ctx, req);
    if (!session) throw errors.unauthorized();
    const account = await findAccountById(ctx.db, session.account_id);
    if (!account) throw errors.unauthorized();
    // Only active access to active tenants: a deactivated tenant or revoked access opens nothing.
    const tenants = await ctx
      .db('tenant_access as a')
      .join('tenants as t', 't.id', 'a.tenant_id')
      .where({ 'a.account_id': account.id, 'a.active': true })
      .where(tenantActiveAt(ctx.now()))
      .orderBy('t.name')
      .select('t.id', 't.name', 't.slug', 't.url');
    res.json({ tenants, is_stakeholder: account.is_stakeholder });
  });

  router.get('/auth/athena', async (req, res) => {
    const session = await getPortalSession(ctx, req);
    if (!session) return res.redirect(303, '/login?client_id=athena');
    res.redirect(303, await athenaUrl(ctx));
  });

  return router;
}

/** ATHENA_URL when configured, else the origin of the athena client's first redirect URI. */
async function athenaUrl(ctx: Context): Promise<string> {
  if (ctx.config.athenaUrl) return ctx.config.athenaUrl;
  const row = await ctx.db('oidc_clients').where({ client_id: 'athena' }).first('metadata');
  const metadata = row ? (typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata) : undefined;
  const first = metadata?.redirect_uris?.[0];
  return first ? new URL(first).origin + '/' : '/login/select-tenant';
}
