import { createHash, randomBytes } from 'node:crypto';
import { recordAudit } from '../audit/audit.ts';
import type { Context } from '../context.ts';
import { AppError } from '../http/app-error.ts';

/** How long the link mailed to the new address stays usable, as a reset link. */
export const emailChangeTtlSeconds = 3600;

export const emailChangeErrors = {
  taken: () => new AppError('account/email-taken', 409, 'Another account has this email address'),
  unchanged: () => new AppError('account/email-unchanged', 409, 'The account already has this email address'),
  /** As a reset link's check (reset.service.ts): unknown, used, replaced, withdrawn and expired links alike. */
  invalidToken: () => new AppError('invalid_token', 406, 'Invalid or expired token'),
  operatorAccount: () =>
    new AppError('account/operator-account', 409, "An operator account's email address cannot be changed: revoke the operator role first"),
  nonePending: () => new AppError('account/no-pending-email-change', 404, 'The account has no email change waiting for confirmation'),
  /** A withdrawal of a change whose commit was reported failed but went through (withdrawEmailChange). */
  alreadyMade: () =>
    new AppError(
      'account/email-change-made',
      409,
      'The change was already made: the account has the new address, both addresses were told, and it was signed out everywhere',
    ),
};

/** What an operator asked for, kept until the new address confirms it. */
export interface PendingEmailChange {
  accountId: string;
  previousEmail: string;
  newEmail: string;
  operatorId: string;
  /** Epoch ms; checked as well as the store's TTL, so the injected clock decides in tests too. */
  expiresAt: number;
  /**
   * This change's own id (random, not derived from the token), named by its
   * `account.email_changed` row: a confirmation finding the account already moved tells this
   * change, committed though reported failed, from another link's. Absent from changes kept before
   * ids were given: a confirmation of one that finds the account already moved refuses it.
   */
  changeId?: string;
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
 * How long a confirmed link is remembered: a confirmation whose sign-out failed after the change
 * was committed (the store down) is tried again by the portal's Try again, which must then finish
 * that sign-out instead of calling the link invalid.
 */
const confirmedTtlSeconds = 600;

/**
 * What the store keeps under a token: `pending` until it is confirmed, `confirmed` from just
 * before the change commits until its sign-out everywhere is done (the claim's random `claim`
 * tells this confirmation's marker from another's), `ended` once withdrawn, replaced, refused
 * or done. A value without `state` was written before states existed: pending.
 */
interface StoredChange extends PendingEmailChange {
  state?: 'pending' | 'confirmed' | 'ended';
  claim?: string;
}

/** A change found by its token, and exactly what the store held, for the compare-and-set steps. */
export interface FoundEmailChange {
  pending: PendingEmailChange;
  /** Committed already: a confirmation tried again finishes the sign-out. */
  confirmed: boolean;
  key: string;
  raw: string;
}

const pendingOf = ({ accountId, previousEmail, newEmail, operatorId, expiresAt, changeId }: StoredChange): PendingEmailChange => ({
  accountId,
  previousEmail,
  newEmail,
  operatorId,
  expiresAt,
  ...(changeId !== undefined && { changeId }),
});

/** The store has no compare-and-delete: an ended change is overwritten by this tombstone, briefly. */
const ended = JSON.stringify({ state: 'ended' });
const endedTtlSeconds = 60;

/**
 * Keeps a change for the new address to confirm and answers its token (32 random bytes), and the
 * pending change it replaced, if any. One per account: the previous change's link stops working,
 * so an operator who mistyped the address and asks again leaves no link to the wrong mailbox
 * usable.
 *
 * The new link is written first, then made the account's one change by a compare-and-set on the
 * account's key, and only the change this call replaced there is ended (by the same
 * compare-and-set a confirmation claims with). Two requests at once (two operators, two
 * processes) thus take turns: each replaces exactly what it read, so one link is left, the later
 * one's; a plain read, delete and write would let both read "none" and leave both links working.
 */
export async function createPendingEmailChange(
  ctx: StoreContext,
  change: Omit<PendingEmailChange, 'expiresAt' | 'changeId'>,
): Promise<{ token: string; replaced: PendingEmailChange | null }> {
  const token = randomBytes(32).toString('base64url');
  const key = changeKey(token);
  const pending: StoredChange = {
    ...change,
    expiresAt: ctx.now().getTime() + emailChangeTtlSeconds * 1000,
    changeId: randomBytes(16).toString('base64url'),
    state: 'pending',
  };
  await ctx.store.set(key, JSON.stringify(pending), emailChangeTtlSeconds);
  const index = accountKey(change.accountId);
  for (;;) {
    const previous = await ctx.store.get(index);
    const swapped =
      previous === null
        ? await ctx.store.setIfAbsent(index, key, emailChangeTtlSeconds)
        : await ctx.store.replaceIfUnchanged(index, previous, key, emailChangeTtlSeconds);
    if (!swapped) continue;
    return { token, replaced: previous === null ? null : await endChangeAt(ctx, previous) };
  }
}

/** Ends the change kept under `key` while it is pending (compare-and-set); answers it, or null. */
async function endChangeAt(ctx: StoreContext, key: string): Promise<PendingEmailChange | null> {
  for (;;) {
    const raw = await ctx.store.get(key);
    if (!raw) return null;
    const stored = JSON.parse(raw) as StoredChange;
    if ((stored.state ?? 'pending') !== 'pending' || stored.expiresAt <= ctx.now().getTime()) return null;
    if (await ctx.store.replaceIfUnchanged(key, raw, ended, endedTtlSeconds)) return pendingOf(stored);
  }
}

/**
 * The change a token stands for, read, not taken: a confirmation spends it only as its change
 * commits (claimPendingEmailChange), so a failure before that (the database down) leaves the link
 * for Try again. Null for an unknown, used, replaced, withdrawn or expired token.
 */
export async function findPendingEmailChange(ctx: StoreContext, token: string): Promise<FoundEmailChange | null> {
  const key = changeKey(token);
  const raw = await ctx.store.get(key);
  if (!raw) return null;
  const stored = JSON.parse(raw) as StoredChange;
  const state = stored.state ?? 'pending';
  if (state === 'ended') return null;
  if (state === 'pending' && stored.expiresAt <= ctx.now().getTime()) return null;
  return { pending: pendingOf(stored), confirmed: state === 'confirmed', key, raw };
}

/** What a confirmation about to commit writes over the link: its own, told from another's by a random claim. */
export function confirmedMarker(found: FoundEmailChange): string {
  return JSON.stringify({ ...found.pending, state: 'confirmed', claim: randomBytes(16).toString('base64url') } satisfies StoredChange);
}

/**
 * Spends the link for a confirmation about to commit: only while it is still exactly as read, so
 * of two confirmations one claims it, and a withdrawal or newer request meanwhile wins (false). Kept as `marker` (confirmedMarker) for a while, for Try again.
 */
export async function claimPendingEmailChange(ctx: StoreContext, found: FoundEmailChange, marker: string): Promise<boolean> {
  return ctx.store.replaceIfUnchanged(found.key, found.raw, marker, confirmedTtlSeconds);
}

/**
 * Gives the link back after a claim whose commit failed: the change did not happen (or did, and
 * was reported failed while the database could not be asked: Try again finishes it, as
 * confirmEmailChange tells), and Try again may make it. Only while the account's key still names it: a newer request or a withdrawal meanwhile
 * replaced that key (each skipped the link, as it was being confirmed), and the link must not come
 * back. The key is read again after the write, as either of them may replace it in between: each
 * replaces it first and then ends the link if it is pending, so either that ending sees the link
 * given back, or this second read sees the key replaced and ends the link here.
 */
export async function restorePendingEmailChange(ctx: StoreContext, found: FoundEmailChange, marker: string): Promise<void> {
  const ttl = Math.ceil((found.pending.expiresAt - ctx.now().getTime()) / 1000);
  const index = accountKey(found.pending.accountId);
  if (ttl <= 0 || (await ctx.store.get(index)) !== found.key) return;
  if (!(await ctx.store.replaceIfUnchanged(found.key, marker, found.raw, ttl))) return;
  if ((await ctx.store.get(index)) !== found.key) await spendPendingEmailChange(ctx, found);
}

/**
 * Ends the link as it was found: a refused confirmation spends it (the operator asks again), and
 * a confirmed one is forgotten once its sign-out is done, so later tries answer invalid.
 */
export async function spendPendingEmailChange(ctx: StoreContext, found: Pick<FoundEmailChange, 'key' | 'raw'>): Promise<void> {
  await ctx.store.replaceIfUnchanged(found.key, found.raw, ended, endedTtlSeconds);
}

/**
 * Ends the account's pending change, if it has one, and answers it (null when there was none:
 * never asked, expired, confirmed, being confirmed or ended): its link stops working at once.
 * Compare-and-set, as a confirmation claims it, so of an ending and a confirmation at the same
 * moment exactly one gets the change.
 *
 * A link being confirmed (claimed, its change not yet known to be committed) is not there to end,
 * but the account's key is taken from it (compare-and-set, as a newer request does), so that a
 * confirmation whose commit then fails does not give it back (restorePendingEmailChange): "nothing
 * pending" stays true whichever way the commit goes. Then the link is ended after all if it was
 * given back in between.
 */
export async function endPendingEmailChange(ctx: StoreContext, accountId: string): Promise<PendingEmailChange | null> {
  const index = accountKey(accountId);
  for (;;) {
    const key = await ctx.store.get(index);
    const raw = key && (await ctx.store.get(key));
    if (!key || !raw) return null;
    const stored = JSON.parse(raw) as StoredChange;
    const state = stored.state ?? 'pending';
    if (state === 'pending') {
      if (stored.expiresAt <= ctx.now().getTime()) return null;
      if (await ctx.store.replaceIfUnchanged(key, raw, ended, endedTtlSeconds)) return pendingOf(stored);
    } else if (state === 'confirmed') {
      // Any value but the link's key will do: nothing is kept under this one.
      if (await ctx.store.replaceIfUnchanged(index, key, `withdrawn:${key}`, endedTtlSeconds)) return endChangeAt(ctx, key);
    } else {
      return null;
    }
  }
}

/**
 * The account's pending change, read only: the one whose link would confirm now (not expired,
 * withdrawn, replaced or being confirmed), or null. For the console, which shows where the account
 * is being moved and until when; what it answers may end a moment later, as a lock may.
 */
export async function findAccountPendingEmailChange(ctx: StoreContext, accountId: string): Promise<PendingEmailChange | null> {
  return (await findAccountEmailChangeLink(ctx, accountId))?.pending ?? null;
}

/** The account's pending change as findAccountPendingEmailChange answers it, as found for a claim (claimPendingEmailChange). */
export async function findAccountEmailChangeLink(ctx: StoreContext, accountId: string): Promise<FoundEmailChange | null> {
  const key = await ctx.store.get(accountKey(accountId));
  const raw = key && (await ctx.store.get(key));
  if (!key || !raw) return null;
  const stored = JSON.parse(raw) as StoredChange;
  if ((stored.state ?? 'pending') !== 'pending' || stored.expiresAt <= ctx.now().getTime()) return null;
  return { pending: pendingOf(stored), confirmed: false, key, raw };
}

/**
 * The account's link when it is confirmed (its change committed) and the account's key still
 * names it: its confirmation's sign-out everywhere has not been done yet (it failed, or is under
 * way), or null.
 */
export async function findAccountConfirmedEmailChange(ctx: StoreContext, accountId: string): Promise<FoundEmailChange | null> {
  const key = await ctx.store.get(accountKey(accountId));
  const raw = key && (await ctx.store.get(key));
  if (!key || !raw) return null;
  const stored = JSON.parse(raw) as StoredChange;
  return stored.state === 'confirmed' ? { pending: pendingOf(stored), confirmed: true, key, raw } : null;
}

/** What ended a pending change other than its confirmation or an operator's withdrawal: a newer request. */
export interface EmailChangeCancellation {
  reason: 'replaced';
  /** The operator whose request replaced it. */
  actorId: string;
  ip: string | null;
  userAgent: string | null;
}

// Nothing else cancels a pending change: not a password reset (whoever holds the old mailbox, the
// very reason for the move, could then block it forever), nor an operator's sign-out everywhere
// (the move may be the way out of a takeover). An admin withdraws a change that should not happen
// (src/admin/accounts/email-change.service.ts).

/** The `account.email_change_cancelled` row of a pending change that ended unconfirmed. */
export async function recordCancelledEmailChange(
  ctx: Pick<Context, 'db' | 'now'>,
  cancelled: PendingEmailChange,
  cause: EmailChangeCancellation,
): Promise<void> {
  await recordAudit(ctx.db, {
    action: 'account.email_change_cancelled',
    actor_id: cause.actorId,
    target_account_id: cancelled.accountId,
    ip: cause.ip,
    user_agent: cause.userAgent,
    details: { email: cancelled.newEmail, reason: cause.reason },
    at: ctx.now(),
  });
}
