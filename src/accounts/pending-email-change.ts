import { createHash, randomBytes } from 'node:crypto';
import type { Context } from '../context.ts';
import { AppError } from '../http/app-error.ts';

/** How long the link mailed to the new address stays usable, as a reset link. */
export const emailChangeTtlSeconds = 3600;

export const emailChangeErrors = {
  taken: () => new AppError('account/email-taken', 409, 'Another account has this email address'),
  unchanged: () => new AppError('account/email-unchanged', 409, 'The account already has this email address'),
  /** As a reset link's check (reset.service.ts): unknown, used, replaced and expired links alike. */
  invalidToken: () => new AppError('invalid_token', 406, 'Invalid or expired token'),
};

/** What an operator asked for, kept until the new address confirms it. */
export interface PendingEmailChange {
  accountId: string;
  previousEmail: string;
  newEmail: string;
  operatorId: string;
  /** Epoch ms; checked as well as the store's TTL, so the injected clock decides in tests too. */
  expiresAt: number;
}

type StoreContext = Pick<Context, 'store' | 'now'>;

/**
 * Only the SHA-256 of the token is a key: the token exists only in the mailed link, so whoever
 * reads the store (a Redis dump, an operator's view) cannot confirm a change with it.
 */
const changeKey = (token: string) => `email-change:${createHash('sha256').update(token).digest('hex')}`;
/** The account's pending change (the key of its token), so a new request can end the previous one. */
const accountKey = (accountId: string) => `email-change-account:${accountId}`;

/**
 * Keeps a change for the new address to confirm and answers its token (32 random bytes). One per
 * account: the previous change's token is deleted, so an operator who mistyped the address and
 * asks again leaves no link to the wrong mailbox usable.
 */
export async function createPendingEmailChange(ctx: StoreContext, change: Omit<PendingEmailChange, 'expiresAt'>): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  const key = changeKey(token);
  const pending: PendingEmailChange = { ...change, expiresAt: ctx.now().getTime() + emailChangeTtlSeconds * 1000 };
  const previous = await ctx.store.get(accountKey(change.accountId));
  if (previous) await ctx.store.del(previous);
  await ctx.store.set(key, JSON.stringify(pending), emailChangeTtlSeconds);
  await ctx.store.set(accountKey(change.accountId), key, emailChangeTtlSeconds);
  return token;
}

/**
 * Takes the change a token stands for, once: getDel makes the first of concurrent confirmations
 * the only one that gets it. Null for an unknown, used, replaced or expired token.
 */
export async function takePendingEmailChange(ctx: StoreContext, token: string): Promise<PendingEmailChange | null> {
  const key = changeKey(token);
  const raw = await ctx.store.getDel(key);
  if (!raw) return null;
  const pending = JSON.parse(raw) as PendingEmailChange;
  if ((await ctx.store.get(accountKey(pending.accountId))) === key) await ctx.store.del(accountKey(pending.accountId));
  return pending.expiresAt > ctx.now().getTime() ? pending : null;
}
