import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type request from 'supertest';
import { accountActionRules } from '../../src/admin/accounts/action-limits.ts';
import { emailChangeSteps } from './email-change-steps.ts';
import { createPersona, errorType, signIn, startAdminApp, type AdminTestApp, type Persona } from './harness.ts';

/**
 * The console's other reads of people, besides account searches: a tenant's users, one account's
 * address (GET /api/tokens/{account_id}/account) and its pending new address
 * (GET /api/accounts/{id}/email-change). Each spends the operator's one search budget (60 a minute,
 * 600 an hour, whatever the route; the tenant list and search too) and is audited: a tenant's users
 * as `operator.tenant_users.listed`, an account's address or pending change as
 * `operator.account.viewed` naming the account.
 */
let t: AdminTestApp;
let tenantId: string;
let person: Persona;
const steps = emailChangeSteps(() => t);

beforeAll(async () => {
  t = await startAdminApp();
  const [tenant] = await t.ctx.db('tenants').insert({ name: 'Budget Bakery', slug: 'budgetbakery' }).returning('id');
  tenantId = (tenant as { id: string }).id;
  person = await steps.customer();
  const [other] = await t.ctx.db('accounts').insert({ email: 'bea.baker@budget.test', name: 'Bea Baker', is_user: true }).returning('id');
  await t.ctx.db('tenant_access').insert([
    { account_id: person.id, tenant_id: tenantId, active: true, role: 'user' },
    { account_id: (other as { id: string }).id, tenant_id: tenantId, active: true, role: 'admin' },
  ]);
});
afterAll(async () => {
  await t?.close();
});

const operator = async (role: 'support' | 'admin'): Promise<{ persona: Persona; agent: request.Agent }> => {
  const persona = await createPersona(t.ctx, { role, totp: true });
  return { persona, agent: await signIn(t, persona) };
};
const auditBy = (persona: Persona) =>
  t.ctx.db('audit_events').where({ actor_id: persona.id }).whereLike('action', 'operator.%').orderBy('id').select('action', 'target_account_id', 'tenant_id', 'details');

/** Every budgeted read, by name, as the console calls it. */
const reads = {
  accountSearch: (agent: request.Agent) => agent.get('/api/accounts/search/baker'),
  accountList: (agent: request.Agent) => agent.get('/api/accounts/'),
  tenantUsers: (agent: request.Agent) => agent.get(`/api/tenants/${tenantId}/users`),
  tenantUserSearch: (agent: request.Agent) => agent.get(`/api/tenants/${tenantId}/users?q=baker`),
  tokensAccount: (agent: request.Agent) => agent.get(`/api/tokens/${person.id}/account`),
  tokens: (agent: request.Agent) => agent.get(`/api/tokens/${person.id}`),
  pendingEmailChange: (agent: request.Agent) => agent.get(`/api/accounts/${person.id}/email-change`),
  tenantList: (agent: request.Agent) => agent.get('/api/tenants/'),
  tenantSearch: (agent: request.Agent) => agent.get('/api/tenants/search/bakery'),
};

describe('reads of people outside the account search', () => {
  it("audits a tenant's users with the tenant, the term and the count, never who; the tenant list is not audited", async () => {
    const { persona, agent } = await operator('support');
    const all = await reads.tenantUsers(agent);
    expect([all.status, all.body.length]).toEqual([200, 2]);
    const found = await reads.tenantUserSearch(agent);
    expect([found.status, found.body.length]).toEqual([200, 1]);
    expect((await reads.tenantList(agent)).status).toBe(200);
    expect((await reads.tenantSearch(agent)).status).toBe(200);

    const rows = await auditBy(persona);
    expect(rows).toEqual([
      { action: 'operator.tenant_users.listed', target_account_id: null, tenant_id: tenantId, details: { role: 'support', query: null, count: 2 } },
      { action: 'operator.tenant_users.listed', target_account_id: null, tenant_id: tenantId, details: { role: 'support', query: 'baker', count: 1 } },
    ]);
    const written = JSON.stringify(rows);
    for (const user of all.body as { id: string; email: string }[]) {
      expect(written).not.toContain(user.id);
      expect(written).not.toContain(user.email);
    }
  });

  it("audits an account's address and its pending new address as a view of that account; an unknown id is a free 404", async () => {
    const { operator: admin } = await steps.signedInAdmin();
    const { persona, agent } = await operator('support');
    const none = await reads.pendingEmailChange(agent);
    expect([none.status, errorType(none)]).toEqual([404, 'account/no-pending-email-change']);
    await steps.requested(admin, person, steps.fresh('moved'));

    expect((await reads.tokensAccount(agent)).body).toEqual({ id: person.id, email: person.email });
    expect((await reads.pendingEmailChange(agent)).status).toBe(200);
    expect((await agent.get('/api/tokens/00000000-0000-4000-8000-000000000000/account')).status).toBe(404);

    expect(await auditBy(persona)).toEqual([
      { action: 'operator.account.viewed', target_account_id: person.id, tenant_id: null, details: { role: 'support', read: 'email' } },
      { action: 'operator.account.viewed', target_account_id: person.id, tenant_id: null, details: { role: 'support', read: 'pending_email_change' } },
    ]);
    expect((await steps.withdraw(admin, person.id)).status).toBe(200);
  });
});

describe("the operator's one search budget", () => {
  it.each(['support', 'admin'] as const)('is shared by every read (%s): 60 of them mixed, then each route answers 429 and records nothing', async (role) => {
    expect(accountActionRules.operatorSearchBurst.points).toBe(60);
    const { persona, agent } = await operator(role);
    const { agent: other } = await operator('support');
    // Unknown ids and tenants are answered 404 before anything is spent.
    expect((await agent.get('/api/tokens/00000000-0000-4000-8000-000000000000/account')).status).toBe(404);
    expect((await agent.get('/api/tenants/00000000-0000-4000-8000-000000000000/users')).status).toBe(404);

    const names = Object.keys(reads) as (keyof typeof reads)[];
    for (let i = 0; i < 60; i += 1) {
      const name = names[i % names.length]!;
      const res = await reads[name](agent);
      // No change waits: the pending change's 404 spends its point too.
      expect([name, res.status]).toEqual([name, name === 'pendingEmailChange' ? 404 : 200]);
    }
    const before = (await auditBy(persona)).length;
    for (const name of names) {
      const refused = await reads[name](agent);
      expect([name, refused.status, errorType(refused)]).toEqual([name, 429, 'too_many_requests']);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    }
    expect(await auditBy(persona)).toHaveLength(before);

    // Another operator's budget is their own.
    expect((await reads.tenantUsers(other)).status).toBe(200);
  });
});
