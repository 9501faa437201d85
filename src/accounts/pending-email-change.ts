import { createHash, randomBytes } from 'node:crypto';
import { recordAudit } from '../audit/audit.ts';
import type { Context } from '../context.ts';
import { AppError } from '../http/app-error.ts';

/** How long the link mailed to the new address stays usable, as a reset link. */
export const emailChangeTtlSeconds = 3600;

export const emailChangeErrors = {
  taken: () => new AppError('account/email-taken', 409, 'Another account has this email address'),
  unchanged: () => new AppError('account/email-unchanged', 409, 'The account already has this email address'),
  /** As a reset link's check (reset.service.ts): unknown, used, replaced and expired links alike. */
  invalidToken: () => new AppError('invalid_token', 406, 'Invalid or expired token'),
  nonePending: () => new AppError('account/no-pending-email-change', 404, 'The account has no email change waiting for confirmation'),
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

/**
 * Ends the account's pending change, if it has one, and answers it (null when there was none, or
 * it had expired): its link stops working at once. getDel, as a confirmation takes it, so of an
 * ending and a confirmation at the same moment exactly one gets the change.
 */
export async function endPendingEmailChange(ctx: StoreContext, accountId: string): Promise<PendingEmailChange | null> {
  const key = await ctx.store.get(accountKey(accountId));
  if (!key) return null;
  const raw = await ctx.store.getDel(key);
  if ((await ctx.store.get(accountKey(accountId))) === key) await ctx.store.del(accountKey(accountId));
  if (!raw) return null;
  const pending = JSON.parse(raw) as PendingEmailChange;
  return pending.expiresAt > ctx.now().getTime() ? pending : null;
}

/** What ended a pending change other than its confirmation or an operator's withdrawal. */
export type EmailChangeCancellation = 'signed_out' | 'password_reset';

/**
 * A pending change does not outlive what says the account may be in the wrong hands, or that its
 * holder got back in without it: an operator signing the account out everywhere (a stolen device,
 * a suspected takeover) and a completed password reset (the person reached their mailbox after
 * all). A change asked for on an attacker's word would otherwise still be one click away. Audited
 * as `account.email_change_cancelled` (the address it would have moved to, and why) when there
 * was one; after the fact, as it only takes something away.
 */
export async function cancelPendingEmailChange(
  ctx: StoreContext & Pick<Context, 'db'>,
  accountId: string,
  cause: { reason: EmailChangeCancellation; actorId: string | null; ip: string | null; userAgent: string | null },
): Promise<void> {
  const ended = await endPendingEmailChange(ctx, accountId);
  if (!ended) return;
  await recordAudit(ctx.db, {
    action: 'account.email_change_cancelled',
    actor_id: cause.actorId,
    target_account_id: accountId,
    ip: cause.ip,
    user_agent: cause.userAgent,
    details: { email: ended.newEmail, reason: cause.reason },
    at: ctx.now(),
  });
}
