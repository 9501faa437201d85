import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type request from 'supertest';
import { accountActionRules, spendSearch } from '../../src/admin/accounts/action-limits.ts';
import type { Operator } from '../../src/admin/operator-guard.ts';
import type { Store } from '../../src/store/store.ts';
import { createPersona, errorType, signIn, startAdminApp, type AdminTestApp, type Persona } from './harness.ts';

/**
 * Account search and list (GET /api/accounts/search/{query}, GET /api/accounts/) are reads of
 * people's names, emails and tenant access: each is audited as `operator.accounts.searched`, with
 * the term but not the accounts, and spent from the operator's budget (action-limits.ts): 60 a
 * minute, 600 an hour. Past it: 429 with Retry-After, nothing read or recorded.
 */
let t: AdminTestApp;

beforeAll(async () => {
  t = await startAdminApp();
  await t.ctx.db('accounts').insert([
    { email: 'greta.garbo@search-audit.test', name: 'Greta Garbo', is_user: true },
    { email: 'gunnar.garbo@search-audit.test', name: 'Gunnar Garbo', is_user: true },
  ]);
});
afterAll(async () => {
  await t?.close();
});

const operator = async (name: string): Promise<{ persona: Persona; agent: request.Agent }> => {
  const persona = await createPersona(t.ctx, { role: 'support', totp: true, name });
  return { persona, agent: await signIn(t, persona) };
};
const searches = (persona: Persona) => t.ctx.db('audit_events').where({ action: 'operator.accounts.searched', actor_id: persona.id }).orderBy('id');

describe('an account search in the console', () => {
  it('is audited with the term and how many accounts it answered, never which; the list too, with no term', async () => {
    const { persona, agent } = await operator('Sara Searcher');
    const found = await agent.get('/api/accounts/search/%20garbo%20');
    expect(found.status).toBe(200);
    expect(found.body).toHaveLength(2);
    expect((await agent.get('/api/accounts/')).status).toBe(200);

    const rows = await searches(persona);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ target_account_id: null, details: { role: 'support', query: 'garbo', count: 2 } });
    expect(rows[1]).toMatchObject({ target_account_id: null, details: { role: 'support', query: null } });
    const written = JSON.stringify(rows);
    for (const account of found.body as { id: string; email: string }[]) {
      expect(written).not.toContain(account.id);
      expect(written).not.toContain(account.email);
    }
  });

  it('is refused past 60 in a minute (429 with Retry-After, in the error shape), reads and records nothing; other operators go on', async () => {
    const { persona, agent } = await operator('Rolf Runaway');
    const { agent: other } = await operator('Olga Other');
    expect(accountActionRules.operatorSearchBurst.points).toBe(60);
    for (let i = 0; i < 40; i += 1) expect((await agent.get(`/api/accounts/search/garbo${i}`)).status).toBe(200);
    for (let i = 0; i < 20; i += 1) expect((await agent.get('/api/accounts/')).status).toBe(200);

    const refused = await agent.get('/api/accounts/search/garbo');
    expect([refused.status, refused.body]).toEqual([429, { detail: [{ type: 'too_many_requests', msg: expect.any(String) }] }]);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect((await agent.get('/api/accounts/')).status).toBe(429);
    expect(await searches(persona)).toHaveLength(60);

    expect((await other.get('/api/accounts/search/garbo')).body).toHaveLength(2);
  });
});

describe("the operator's search budget", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('allows 600 an hour, in bursts of up to 60 a minute; a burst refused gives the hour its points back', async () => {
    expect(accountActionRules.operatorSearch).toEqual({ points: 600, duration: 3600 });
    let now = Date.UTC(2025, 0, 6, 9, 0, 0);
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    // In-process limiters, whose clock is Date.now (Redis keeps its own time).
    const ctx = { store: { kind: 'memory' } as Store, config: { storePrefix: 'search-budget:' } } as Parameters<typeof spendSearch>[0];
    const sara = { account_id: 'sara' } as Operator;
    const outcome = async () => spendSearch(ctx, sara).then(() => 200, (error: { status: number }) => error.status);

    // Minute 0: 60 go through, the rest of the burst is refused (and costs the hour nothing).
    for (let i = 0; i < 60; i += 1) expect(await outcome()).toBe(200);
    for (let i = 0; i < 30; i += 1) expect(await outcome()).toBe(429);
    // Nine more minutes at the full pace: 600 in all.
    for (let minute = 1; minute < 10; minute += 1) {
      now += 61_000;
      for (let i = 0; i < 60; i += 1) expect(await outcome()).toBe(200);
    }
    now += 61_000;
    const refused = await spendSearch(ctx, sara).catch((error: { status: number; headers?: Record<string, string> }) => error);
    expect(refused).toMatchObject({ status: 429 });
    // The hour began with the first search, about ten minutes ago.
    const retryAfter = Number((refused as { headers: Record<string, string> }).headers['Retry-After']);
    expect(retryAfter).toBeGreaterThan(48 * 60);
    expect(retryAfter).toBeLessThanOrEqual(50 * 60);
    // Another operator has a budget of their own.
    expect(await spendSearch(ctx, { account_id: 'sven' } as Operator).then(() => 200)).toBe(200);
    now += 50 * 60_000;
    expect(await outcome()).toBe(200);
  });
});
