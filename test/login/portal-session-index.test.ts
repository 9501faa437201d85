import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPortalSession,
  destroyAccountPortalSessions,
  destroyPortalSession,
  getPortalSessionById,
  listPortalSessions,
  pruneIndexAbove,
} from '../../src/session/portal-session.ts';
import { portalSessionTtlSeconds } from '../../src/session/session-deadlines.ts';
import { createTestContext, type TestContext } from '../helpers/context.ts';
import { createAccount } from './fixtures.ts';

/**
 * A portal session is written with its entry in the account's index in one step (the index holds
 * session keys). Indexes written before that hold bare ids; both forms are read alike.
 */
let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx?.dispose();
});

const data = (accountId: string) => ({ account_id: accountId, email: 'x@example.com', amr: ['pwd'], auth_time: 1, ip: null, user_agent: null });

/** A session as the previous release wrote it: its bare id in the account's index. */
async function legacySession(accountId: string, id: string) {
  // Signed in just now: a session from long ago would have ended (12 h cap, idle timeout).
  const createdAt = Math.floor(ctx.now().getTime() / 1000);
  await ctx.store.set(`session:${id}`, JSON.stringify({ ...data(accountId), created_at: createdAt }), portalSessionTtlSeconds);
  await ctx.store.sadd(`account:${accountId}:sessions`, id, portalSessionTtlSeconds);
}

describe('the account index of portal sessions', () => {
  it('lists new and old entries, and a destroyed session is gone from the list', async () => {
    const { id: accountId } = await createAccount(ctx.db);
    const fresh = await createPortalSession(ctx, data(accountId));
    await legacySession(accountId, 'legacy-session-id');
    expect((await ctx.store.smembers(`account:${accountId}:sessions`)).sort()).toEqual(['legacy-session-id', `session:${fresh.id}`]);
    expect((await listPortalSessions(ctx, accountId)).map((s) => s.id).sort()).toEqual(['legacy-session-id', fresh.id].sort());

    await destroyPortalSession(ctx, fresh.id);
    await destroyPortalSession(ctx, 'legacy-session-id');
    expect(await listPortalSessions(ctx, accountId)).toEqual([]);
    expect(await ctx.store.smembers(`account:${accountId}:sessions`)).toEqual([]);
  });

  it('signing the account out everywhere ends sessions of both forms', async () => {
    const { id: accountId } = await createAccount(ctx.db);
    const fresh = await createPortalSession(ctx, data(accountId));
    await legacySession(accountId, 'another-legacy-id');
    await destroyAccountPortalSessions(ctx, accountId);
    expect(await getPortalSessionById(ctx, fresh.id)).toBeNull();
    expect(await getPortalSessionById(ctx, 'another-legacy-id')).toBeNull();
    expect(await listPortalSessions(ctx, accountId)).toEqual([]);
  });
});

describe('a sign-in prunes the account index once it lists more than a few sessions', () => {
  it('of sessions that ended (idle, past 12 hours, or gone from the store): it holds the live ones only', async () => {
    const { id: accountId } = await createAccount(ctx.db);
    const index = `account:${accountId}:sessions`;
    const gone = await createPortalSession(ctx, { ...data(accountId), persistent: true });
    // Its session key expired in the store (Redis drops it at its TTL); the index entry stays behind.
    await ctx.store.del(`session:${gone.id}`);
    const idled = [];
    for (let i = 2; i < pruneIndexAbove; i += 1) idled.push(await createPortalSession(ctx, data(accountId)));
    ctx.advance((ctx.config.sessionIdleMinutes + 1) * 60_000);

    // With the index at its limit, a sign-in adds its session and leaves the rest to later.
    const atLimit = await createPortalSession(ctx, data(accountId));
    expect(await ctx.store.smembers(index)).toHaveLength(pruneIndexAbove);
    // Past it, a sign-in prunes: only the live sessions stay listed.
    const next = await createPortalSession(ctx, data(accountId));
    expect((await ctx.store.smembers(index)).sort()).toEqual([`session:${atLimit.id}`, `session:${next.id}`].sort());
    expect(await getPortalSessionById(ctx, idled[0]!.id)).toBeNull();
  });
});
