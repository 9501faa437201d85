import type { Context } from '../../context.ts';
import { challengeTtlSeconds } from './relying-party.ts';

/**
 * A WebAuthn challenge waiting for its answer, in the store under the session that asked for it:
 * `passkey-challenge:login:<login session id>` or `passkey-challenge:register:<portal session id>`.
 * A new request replaces the pending one, so only the last challenge shown can be answered.
 */
interface PendingChallenge {
  challenge: string;
  account_id: string;
  /** ms on ctx.now()'s clock. */
  expires_at: number;
}

export type ChallengePurpose = 'login' | 'register';

type ChallengeContext = Pick<Context, 'store' | 'now'>;

const key = (purpose: ChallengePurpose, sessionId: string) => `passkey-challenge:${purpose}:${sessionId}`;

export async function saveChallenge(
  ctx: ChallengeContext,
  purpose: ChallengePurpose,
  sessionId: string,
  accountId: string,
  challenge: string,
): Promise<void> {
  const pending: PendingChallenge = { challenge, account_id: accountId, expires_at: ctx.now().getTime() + challengeTtlSeconds * 1000 };
  await ctx.store.set(key(purpose, sessionId), JSON.stringify(pending), challengeTtlSeconds);
}

/**
 * Takes the pending challenge with getDel before the answer is looked at: a challenge is used at
 * most once, whatever the outcome, so a captured answer cannot be replayed and each failed try
 * needs a new challenge. Null when there is none, it expired, or it was issued to another account.
 */
export async function takeChallenge(
  ctx: ChallengeContext,
  purpose: ChallengePurpose,
  sessionId: string,
  accountId: string,
): Promise<string | null> {
  const raw = await ctx.store.getDel(key(purpose, sessionId));
  if (!raw) return null;
  const pending = JSON.parse(raw) as PendingChallenge;
  if (pending.account_id !== accountId || pending.expires_at <= ctx.now().getTime()) return null;
  return pending.challenge;
}
