import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPortalSession,
  destroyPortalSession,
  getPortalSessionById,
  raisePortalSession,
} from '../../src/session/portal-session.ts';
import { lastSeenWriteSeconds } from '../../src/session/session-deadlines.ts';
import { createTestContext, type TestContext } from '../helpers/context.ts';
import { afterNextRead } from '../helpers/store-hooks.ts';

/**
 * Two requests of one browser at once: one records the session's use (last_seen, once a minute)
 * from the copy it read, while the other changes the session. The older copy must never undo the
 * change: the renewal under a new id when the first authenticator app raised the amr, or a sign-out.
 */
let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx?.dispose();
});

async function sessionDueForTouch() {
  const session = await createPortalSession(ctx, { account_id: randomUUID(), email: 'race@example.com', amr: ['pwd'], auth_time: 0, ip: null, user_agent: null });
  // Past the minute: the next use writes last_seen.
  ctx.advance((lastSeenWriteSeconds + 1) * 1000);
  return session;
}

describe('recording a use of the session', () => {
  it('does not write back the old id of a session renewed (amr raised) between its read and its write', async () => {
    const session = await sessionDueForTouch();
    let raised: Awaited<ReturnType<typeof raisePortalSession>> = null;
    afterNextRead(ctx.store, 'get', `session:${session.id}`, async () => {
      raised = await raisePortalSession(ctx, session, ['otp', 'mfa']);
    });
    expect((await getPortalSessionById(ctx, session.id))?.amr).toEqual(['pwd']);

    expect(await ctx.store.get(`session:${session.id}`)).toBeNull();
    expect(await getPortalSessionById(ctx, session.id)).toBeNull();
    expect((await getPortalSessionById(ctx, raised!.id))?.amr).toEqual(['pwd', 'otp', 'mfa']);
  });

  it('does not write back a session signed out between its read and its write', async () => {
    const session = await sessionDueForTouch();
    afterNextRead(ctx.store, 'get', `session:${session.id}`, () => destroyPortalSession(ctx, session.id));
    await getPortalSessionById(ctx, session.id);
    expect(await ctx.store.get(`session:${session.id}`)).toBeNull();
    expect(await getPortalSessionById(ctx, session.id)).toBeNull();
  });

  it('still records the use when nothing else wrote', async () => {
    const session = await sessionDueForTouch();
    await getPortalSessionById(ctx, session.id);
    const stored = JSON.parse((await ctx.store.get(`session:${session.id}`))!) as { last_seen?: number };
    expect(stored.last_seen).toBe(Math.floor(ctx.now().getTime() / 1000));
  });
});
