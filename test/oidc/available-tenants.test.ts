import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createTenant, grantAccess } from '../fixtures/accounts.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { signInWithPassword } from '../login/journey.ts';

const password = 'Tenant-picker-9!';
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
  const accountId = await createAccount(t.ctx.db, { email: 'picker@example.com', password });
  const day = 24 * 3600 * 1000;
  const tenants = {
    open: await createTenant(t.ctx.db, 'open'),
    scheduled: await createTenant(t.ctx.db, 'scheduled'),
    closed: await createTenant(t.ctx.db, 'closed'),
    revoked: await createTenant(t.ctx.db, 'revoked'),
  };
  await t.ctx.db('tenants').where({ id: tenants.scheduled }).update({ inactive_at: new Date(t.ctx.now().getTime() + day) });
  await t.ctx.db('tenants').where({ id: tenants.closed }).update({ inactive_at: new Date(t.ctx.now().getTime() - day) });
  for (const id of [tenants.open, tenants.scheduled, tenants.closed]) await grantAccess(t.ctx.db, accountId, id);
  await grantAccess(t.ctx.db, accountId, tenants.revoked, false);
});
afterAll(() => t?.close());

describe('GET /auth/available-tenants', () => {
  it('lists active access to tenants not yet deactivated: a future deactivation still counts as active', async () => {
    const browser = t.agent();
    expect((await signInWithPassword(browser, 'picker@example.com', password)).body.state).toBe('Done');
    const res = await browser.get('/auth/available-tenants');
    expect(res.status).toBe(200);
    expect(res.body.tenants.map((tenant: { slug: string }) => tenant.slug)).toEqual(['open', 'scheduled']);
    expect(res.body.is_stakeholder).toBe(false);
  });

  it('answers 401 without a Nyckel session', async () => {
    const res = await t.agent().get('/auth/available-tenants');
    expect(res.status).toBe(401);
    expect(res.body.detail[0].type).toBe('unauthorized');
  });
});
