import { expect } from 'vitest';
import type { Context } from '../../src/context.ts';
import { limitRules, rateLimitsFor } from '../../src/http/rate-limit.ts';

/**
 * Spends an address's per-IP budget of the sign-in calls (src/http/rate-limit.ts) through the
 * app's own limiter, leaving `left` points (0: the next call is refused).
 */
export async function spendIpBudget(ctx: Pick<Context, 'store' | 'config'>, ip: string, left = 0): Promise<void> {
  const limits = rateLimitsFor(ctx);
  // Bounded: a limiter that stopped refusing fails here instead of spinning until the CI step's timeout.
  let refused: unknown;
  for (let tries = 0; !refused && tries < limitRules.ip.points + 1; tries += 1) {
    refused = await limits.consume('ip', ip).catch((error: unknown) => error);
  }
  expect(refused, `the per-IP budget of ${ip} was never refused in ${limitRules.ip.points + 1} calls`).toMatchObject({ type: 'too_many_requests' });
  if (left === 0) return;
  // The refused try counted too: a point back for it, and one for each to leave.
  for (let i = 0; i < left + 1; i += 1) await limits.refund('ip', ip);
}

/**
 * Gives an address, and the emails named, their whole sign-in budgets back (at least; never less
 * than they had), for a test file whose many sign-ins from loopback, often of one person, would
 * otherwise run into the 300 calls per address or 60 per email in 15 minutes part way.
 */
export async function restoreSignInBudgets(ctx: Pick<Context, 'store' | 'config'>, emails: string[] = [], ip = '127.0.0.1'): Promise<void> {
  const limits = rateLimitsFor(ctx);
  await limits.refund('ip', ip, limitRules.ip.points);
  for (const email of emails) await limits.refund('email', email, limitRules.email.points);
}
