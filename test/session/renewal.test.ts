import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPortalSession,
  destroyAccountPortalSessions,
  destroyPortalSession,
  getPortalSessionById,
  linkOidcSession,
  linkSigningIn,
  linkedOidcSessions,
  listPortalSessions,
  raisePortalSession,
  signingInSession,
  type PortalSessionWithId,
} from '../../src/session/portal-session.ts';
import { createTestContext, type TestContext } from '../helpers/context.ts';
import { afterNextRead } from '../helpers/store-hooks.ts';

/**
 * A session whose authentication level rises (the person activated their first authenticator
 * app in it) goes on under a new id: whoever copied the old cookie before does not gain the
 * second factor (OWASP session management, ASVS 3.2.1). Sign-outs racing the renewal still win.
 */
let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx?.dispose();
});

async function passwordSession(accountId: string = randomUUID()): Promise<PortalSessionWithId> {
  return createPortalSession(ctx, { account_id: accountId, email: 'renew@example.com', amr: ['pwd'], auth_time: 1_000, ip: '192.0.2.1', user_agent: 'UA', persistent: true });
}

describe('raising a session’s authentication methods', () => {
  it('renews its id: the old id ends, the new one keeps the sign-in (auth_time, 12 h, remember me) with the raised amr', async () => {
    const session = await passwordSession();
    ctx.advance(5_000);
    const raised = (await raisePortalSession(ctx, session, ['otp', 'mfa']))!;

    expect(raised.id).not.toBe(session.id);
    expect(await getPortalSessionById(ctx, session.id)).toBeNull();
    const stored = await getPortalSessionById(ctx, raised.id);
    expect(stored).toMatchObject({
      amr: ['pwd', 'otp', 'mfa'],
      auth_time: 1_000,
      created_at: session.created_at,
      persistent: true,
      ip: '192.0.2.1',
      last_seen: Math.floor(ctx.now().getTime() / 1000),
    });
    expect((await listPortalSessions(ctx, session.account_id)).map((s) => s.id)).toEqual([raised.id]);
    // Its time left is what was left of the old one's 12 h, not 12 h afresh.
    const ttl = (await ctx.store.ttl(`session:${raised.id}`))!;
    expect(ttl).toBeLessThanOrEqual(12 * 3600 - 5);
  });

  it('keeps the id when nothing is added: no change of level', async () => {
    const session = await passwordSession();
    const raised = await raisePortalSession(ctx, { ...session, amr: ['pwd', 'otp', 'mfa'] }, ['otp', 'mfa']);
    expect(raised?.id).toBe(session.id);
  });

  it('moves the provider sessions it signed in to the new id; one another session signed in stays that one’s', async () => {
    const session = await passwordSession();
    const other = await passwordSession(session.account_id);
    await linkOidcSession(ctx, session.id, 'op-mine');
    await linkSigningIn(ctx, 'op-mine', session.id);
    // Finished an interaction here, but signed in by the other portal session.
    await linkOidcSession(ctx, session.id, 'op-shared');
    await linkSigningIn(ctx, 'op-shared', other.id);

    const raised = (await raisePortalSession(ctx, session, ['otp', 'mfa']))!;
    expect((await linkedOidcSessions(ctx, raised.id)).sort()).toEqual(['op-mine', 'op-shared']);
    expect(await linkedOidcSessions(ctx, session.id)).toEqual([]);
    expect(await signingInSession(ctx, 'op-mine')).toBe(raised.id);
    expect(await signingInSession(ctx, 'op-shared')).toBe(other.id);
  });

  it('raises nothing for a session signed out before it', async () => {
    const session = await passwordSession();
    await destroyPortalSession(ctx, session.id);
    expect(await raisePortalSession(ctx, session, ['otp', 'mfa'])).toBeNull();
    expect(await listPortalSessions(ctx, session.account_id)).toEqual([]);
  });

  it('raises nothing for a session signed out while it ran: the new id ends too', async () => {
    const session = await passwordSession();
    await linkOidcSession(ctx, session.id, 'op-racing');
    // The new session is written; the sign-out lands before the old one is claimed.
    afterNextRead(ctx.store, 'smembers', `session:${session.id}:oidc`, () => destroyPortalSession(ctx, session.id));
    expect(await raisePortalSession(ctx, session, ['otp', 'mfa'])).toBeNull();
    expect(await listPortalSessions(ctx, session.account_id)).toEqual([]);
    expect(await ctx.store.smembers(`account:${session.account_id}:sessions`)).toEqual([]);
  });

  it('raises nothing when a sign-out has begun (its end mark written) but not yet deleted the old id', async () => {
    const session = await passwordSession();
    await linkOidcSession(ctx, session.id, 'op-halfway');
    // destroyPortalSession's first step: the mark, then (after the renewal looked) the delete.
    afterNextRead(ctx.store, 'smembers', `session:${session.id}:oidc`, () => ctx.store.set(`session:${session.id}:ended`, 'ended', 600));
    expect(await raisePortalSession(ctx, session, ['otp', 'mfa'])).toBeNull();
    await destroyPortalSession(ctx, session.id);
    expect(await listPortalSessions(ctx, session.account_id)).toEqual([]);
  });

  it('is ended by a sign-out of the old id that comes after it, with the provider sessions it took over', async () => {
    // A revoke from another browser decided on the old id (it listed the sessions a moment before).
    const session = await passwordSession();
    await linkOidcSession(ctx, session.id, 'op-followed');
    const raised = (await raisePortalSession(ctx, session, ['otp', 'mfa']))!;

    expect(await destroyPortalSession(ctx, session.id)).toEqual(['op-followed']);
    expect(await getPortalSessionById(ctx, raised.id)).toBeNull();
    expect(await linkedOidcSessions(ctx, raised.id)).toEqual([]);
    expect(await listPortalSessions(ctx, session.account_id)).toEqual([]);
  });

  it('does not outlive signing the account out everywhere, when it lands after that read the account’s sessions', async () => {
    const session = await passwordSession();
    let raised: PortalSessionWithId | null = null;
    afterNextRead(ctx.store, 'smembers', `account:${session.account_id}:sessions`, async () => {
      raised = await raisePortalSession(ctx, session, ['otp', 'mfa']);
    });
    await destroyAccountPortalSessions(ctx, session.account_id);
    expect(raised).not.toBeNull();
    expect(await getPortalSessionById(ctx, raised!.id)).toBeNull();
    expect(await listPortalSessions(ctx, session.account_id)).toEqual([]);
  });
});
