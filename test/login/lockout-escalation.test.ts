import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/http/app-error.ts';
import { assertNotLocked, clearFailures, lockoutPolicy, recordFailure, reserveAttempt } from '../../src/login/lockout.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount } from './fixtures.ts';
import { errorType, start } from './journey.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const password = 'Correct-Horse-9';
const meta = (accountId: string | null) => ({ accountId, method: 'password', reason: 'invalid_credentials', ip: null, userAgent: null });

/** Seconds until the email's lock ends, from the Retry-After of the refusal; 0 when not locked. */
async function lockedFor(email: string): Promise<number> {
  try {
    await assertNotLocked(t.ctx, { email });
    return 0;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).type).toBe('account_locked');
    return Number((error as AppError).headers?.['Retry-After']);
  }
}

/** One window's worth of wrong passwords, as verifyFirstFactor counts them; the last one locks. */
async function failWindow(email: string, accountId: string | null): Promise<void> {
  for (let i = 1; i <= lockoutPolicy.maxFailures; i += 1) {
    const attempt = await reserveAttempt(t.ctx, { email });
    const failing = attempt.failed(meta(accountId));
    if (i < lockoutPolicy.maxFailures) await failing;
    else await expect(failing).rejects.toMatchObject({ type: 'account_locked' });
  }
}

describe('lockout over many windows', () => {
  it('makes each lock in a run of failures twice as long as the one before, up to a day', async () => {
    const email = `escalate-${Date.now()}@example.com`;
    const lengths: number[] = [];
    for (let lock = 0; lock < 9; lock += 1) {
      await failWindow(email, null);
      const seconds = await lockedFor(email);
      lengths.push(seconds);
      t.ctx.advance(seconds * 1000 + 1000);
      expect(await lockedFor(email)).toBe(0);
    }
    const minutes = lengths.map((seconds) => Math.round(seconds / 60));
    expect(minutes).toEqual([15, 30, 60, 120, 240, 480, 960, 1440, 1440]);
  });

  it('stops guessing after 100 failures in a row: locked for 30 days, whatever the pace, until a reset', async () => {
    const account = await createAccount(t.ctx.db, { password });
    // Nine wrong passwords per window never lock by themselves: the slow guesser's pace.
    for (let failures = 0; failures < lockoutPolicy.maxConsecutiveFailures - 1; failures += 1) {
      await recordFailure(t.ctx, account.email, meta(account.id)).catch((error: AppError) => {
        expect(error.type).toBe('account_locked');
      });
      if (failures % 9 === 8) {
        // A new window (and any lock of this run over) before the next nine.
        t.ctx.advance(Math.max(lockoutPolicy.windowSeconds, await lockedFor(account.email)) * 1000 + 1000);
        await t.ctx.store.del(...(await t.ctx.store.scan('lockout:')).map(({ key }) => key).filter((key) => key.endsWith(':failures')));
      }
    }
    expect(await lockedFor(account.email)).toBe(0);
    await expect(recordFailure(t.ctx, account.email, meta(account.id))).rejects.toMatchObject({ type: 'account_locked' });
    expect(await lockedFor(account.email)).toBeGreaterThan(29 * 24 * 3600);

    // Failures that still arrive (a TOTP step already under way counts them too) never shorten it.
    for (let i = 0; i < lockoutPolicy.maxFailures; i += 1) await recordFailure(t.ctx, account.email, meta(account.id)).catch(() => {});
    expect(await lockedFor(account.email)).toBeGreaterThan(29 * 24 * 3600);

    // Two days later the right password is still refused, unverified.
    t.ctx.advance(2 * 24 * 3600 * 1000);
    const browser = t.agent();
    expect(errorType(await start(browser, account.email))).toBe('account_locked');
    const locks = await t.ctx.db('audit_events').where({ target_account_id: account.id, action: 'login.locked' }).select('details');
    expect(locks.map(({ details }) => (typeof details === 'string' ? JSON.parse(details) : details).consecutive_failures)).toContain(lockoutPolicy.maxConsecutiveFailures);

    // A completed password reset clears it (reset.service calls clearFailures), and the run starts afresh.
    await clearFailures(t.ctx, { email: account.email });
    expect(errorType(await start(t.agent(), account.email))).toBeUndefined();
    await recordFailure(t.ctx, account.email, meta(account.id));
    expect(await lockedFor(account.email)).toBe(0);
  });

  it('a lock never shortens a longer one already set (a burst’s window lock landing after the 30-day one)', async () => {
    const email = `longer-${Date.now()}@example.com`;
    // As if the 30-day lock had just been written by a parallel request (lockout.ts's key for it).
    const hashed = createHash('sha256').update(email).digest('base64url');
    const thirtyDays = lockoutPolicy.consecutiveWindowSeconds;
    await t.ctx.store.set(`lockout:${hashed}:until`, String(t.ctx.now().getTime() + thirtyDays * 1000), thirtyDays);
    for (let i = 1; i <= lockoutPolicy.maxFailures; i += 1) await recordFailure(t.ctx, email, meta(null)).catch(() => {});
    expect(await lockedFor(email)).toBeGreaterThan(thirtyDays - 60);
  });

  it('a success in between starts the run, and the lock lengths, afresh', async () => {
    const email = `afresh-${Date.now()}@example.com`;
    for (let lock = 0; lock < 2; lock += 1) {
      await failWindow(email, null);
      t.ctx.advance((await lockedFor(email)) * 1000 + 1000);
    }
    await clearFailures(t.ctx, { email });
    await failWindow(email, null);
    expect(Math.round((await lockedFor(email)) / 60)).toBe(15);
  });
});
