import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bulkTenantSlug, generateAccounts } from '../../seeds/generate-accounts.ts';
import { createTestContext, type TestContext } from '../helpers/context.ts';

let ctx: TestContext;

async function countOf(query: Knex.QueryBuilder): Promise<number> {
  const rows = (await query.count('* as count')) as { count: string | number }[];
  return Number(rows[0]!.count);
}
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx?.dispose();
});

describe('generateAccounts', () => {
  it('creates numbered accounts in batches with credentials and tenant access, and tops up idempotently', async () => {
    const progress: number[] = [];
    expect(await generateAccounts(ctx.db, 2500, { batchSize: 1000, onProgress: (done) => progress.push(done) })).toBe(2500);
    expect(progress).toEqual([1000, 2000, 2500]);
    expect(await generateAccounts(ctx.db, 2500)).toBe(0);
    expect(await generateAccounts(ctx.db, 3000)).toBe(500);

    expect(await countOf(ctx.db('accounts').where('email', 'like', 'bulk-%'))).toBe(3000);
    const sample = await ctx.db('accounts').where({ email: 'bulk-0000042@acme.test' }).first('name', 'is_user', 'is_stakeholder');
    expect(sample).toEqual({ name: expect.stringMatching(/^[A-Z][a-z]+ [A-Z][a-z]+$/), is_user: true, is_stakeholder: false });
    const tenant = await ctx.db('tenants').where({ slug: bulkTenantSlug }).first('id');
    // About one in two gets access, one in three an upstream credential.
    const access = await countOf(ctx.db('tenant_access').where({ tenant_id: tenant.id }));
    expect(access).toBeGreaterThan(1000);
    expect(access).toBeLessThan(2000);
    const upstream = await countOf(ctx.db('credentials').where('subject', 'like', 'bulk:%'));
    expect(upstream).toBeGreaterThan(500);
    expect(upstream).toBeLessThan(1500);
    const names = await ctx.db('accounts').where('email', 'like', 'bulk-%').countDistinct<{ count: string }[]>('name as count');
    expect(Number(names[0]!.count)).toBeGreaterThan(1000);
  });
});
