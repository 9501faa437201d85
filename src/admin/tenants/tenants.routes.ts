import { Router } from 'express';
import { z } from 'zod';
import type { Context } from '../../context.ts';
import { validate } from '../../http/validate.ts';
import { addCreditsBody, settingBody, smsSettingBody, smsSettingKeys } from '../../tenants/tenant-settings.ts';
import { searchParams, tenantParams } from '../admin.schemas.ts';
import { operatorOf, requireOperator } from '../operator-guard.ts';
import {
  addCredits,
  allTenants,
  createTenant,
  findTenants,
  setTenantSetting,
  smsCredits,
  tenantDetail,
  tenantSettings,
  tenantUsers,
} from './tenants-admin.service.ts';

/** Spec section 5: "lowercase letters and digits only; ... name and slug required". */
const createTenantBody = z.strictObject({
  name: z.string().trim().min(1, 'Name is required').max(200),
  slug: z.string().regex(/^[a-z0-9]{1,63}$/, 'Slug must be 1–63 lowercase letters and digits'),
  url: z.url({ protocol: /^https?$/ }).max(2048).optional(),
});

/** Spec section 5: "Tenant user search needs more than 2 characters"; without `q`, the first users. */
const tenantUsersQuery = z.object({
  q: z.string().trim().min(3, 'User search needs at least 3 characters').max(100).optional(),
});

/** The console's Tenants pages: list, search, detail, users, settings, SMS settings and credits, creation. */
export function createAdminTenantsRouter(ctx: Context): Router {
  const router = Router();
  const support = requireOperator(ctx, 'support');
  const admin = requireOperator(ctx, 'admin');
  const tenant = validate({ params: tenantParams });

  // The list, the search and a tenant's users are budgeted per operator; the users audited too
  // (tenants-admin.service.ts).
  router.get('/api/tenants/', support, async (_req, res) => {
    res.json(await allTenants(ctx, operatorOf(res)));
  });

  router.get('/api/tenants/search/:query', support, validate({ params: searchParams }), async (_req, res) => {
    res.json(await findTenants(ctx, operatorOf(res), res.locals.params.query));
  });

  router.post('/api/tenants', admin, validate({ body: createTenantBody }), async (_req, res) => {
    res.status(201).json(await createTenant(ctx, operatorOf(res), res.locals.body));
  });

  router.get('/api/tenants/:tenantId', support, tenant, async (_req, res) => {
    res.json(await tenantDetail(ctx, res.locals.params.tenantId));
  });

  router.get('/api/tenants/:tenantId/users', support, tenant, validate({ query: tenantUsersQuery }), async (_req, res) => {
    res.json(await tenantUsers(ctx, operatorOf(res), res.locals.params.tenantId, res.locals.query.q));
  });

  router.get('/api/tenants/:tenantId/settings', support, tenant, async (_req, res) => {
    const { tenantId } = res.locals.params;
    res.json((await tenantSettings(ctx, tenantId)).map((s) => ({ tenant_id: tenantId, ...s })));
  });

  router.post('/api/tenants/:tenantId/settings', admin, tenant, validate({ body: settingBody }), async (_req, res) => {
    const { tenantId } = res.locals.params;
    const { key, value } = res.locals.body;
    await setTenantSetting(ctx, operatorOf(res), { tenantId, key, value });
    res.json({ tenant_id: tenantId, key, value });
  });

  router.get('/api/tenants/:tenantId/settings/sms', support, tenant, async (_req, res) => {
    res.json(await tenantSettings(ctx, res.locals.params.tenantId, smsSettingKeys));
  });

  router.post('/api/tenants/:tenantId/settings/sms', admin, tenant, validate({ body: smsSettingBody }), async (_req, res) => {
    const { key, value } = res.locals.body;
    await setTenantSetting(ctx, operatorOf(res), { tenantId: res.locals.params.tenantId, key, value });
    res.json({ key, value });
  });

  router.get('/api/tenants/:tenantId/settings/sms/credits', support, tenant, async (_req, res) => {
    res.json({ credits: await smsCredits(ctx, res.locals.params.tenantId) });
  });

  router.post('/api/tenants/:tenantId/settings/sms/credits', admin, tenant, validate({ body: addCreditsBody }), async (_req, res) => {
    res.json({ credits: await addCredits(ctx, operatorOf(res), res.locals.params.tenantId, res.locals.body.credits) });
  });

  return router;
}
