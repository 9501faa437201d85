import type Provider from 'oidc-provider';
import { findAccountById, normalizeEmail } from '../accounts/accounts.repository.ts';
import {
  claimPendingEmailChange,
  confirmedMarker,
  emailChangeErrors,
  findAccountConfirmedEmailChange,
  findAccountEmailChangeLink,
  findPendingEmailChange,
  restorePendingEmailChange,
  spendPendingEmailChange,
  type FoundEmailChange,
  type PendingEmailChange,
} from '../accounts/pending-email-change.ts';
import { recordAudit } from '../audit/audit.ts';
import type { Context } from '../context.ts';
import { failureOf } from '../mail/mail-failure.ts';
import { maskAddress } from '../mail/mailer.ts';
import { notifyAddress, notifySecurityChange } from '../profile/security-notice.ts';
import { signOutEverywhere } from '../profile/sessions.service.ts';
import { committedBefore, moveAccount, type Moved, type Refusal } from './email-change-move.ts';
import { endSignInsInProgress } from './login-session.ts';
import type { ClientInfo } from './reset.service.ts';

/**
 * The link an operator's "Change email" mailed to the new address (src/admin/accounts/
 * email-change.service.ts), confirmed from the portal's page: opening the link alone changes
 * nothing, since mail scanners fetch links. A link works once, and a refused confirmation (406,
 * 409) spends it too: the operator asks again.
 *
 * The operator who asked must still be an admin, else 406 as for a spent link: a change asked for
 * by an admin whose role was revoked since (offboarded, or found out) is not carried out on their
 * word, as impersonation re-checks its operator when the hand-off is opened. Checked after this
 * change's own earlier commit (moveAccount): a change that did happen was valid when committed,
 * and is finished (notices, sign-out) whatever the requester's role is now.
 *
 * The change is made in one transaction (moveAccount), and the link is spent inside it, last,
 * just before the commit (claimPendingEmailChange: only while it is still as read, so of two
 * confirmations, or a confirmation and a withdrawal, one wins). A failure before the commit (the
 * database gone for a moment: 503) thus leaves the link for the portal's Try again, and a commit
 * that fails after the claim gives it back, unless a newer request or a withdrawal came meanwhile
 * (restorePendingEmailChange): then the link is gone.
 *
 * A commit reported failed may have gone through (the connection lost after COMMIT reached the
 * server): before giving the link back the database is asked (committedBefore), and when this
 * change's `account.email_changed` row is there the change is finished at once, answering 200,
 * so that nothing waits on the person's Try again. When the database does not answer, the link is
 * given back (503), and Try again finds the account already at the new address. It then finishes
 * the change as below, answering 200, only when the `account.email_changed` row of this very
 * change is there (its `change_id`): the account may have reached that address some other way
 * (another link to it, confirmed first), and that change's notices and sign-out were its own.
 * Anything else at the new address is refused (`address_changed`). An admin's withdrawal of a
 * change so given back does not end it either (claimCommittedEmailChange).
 *
 * Once committed the link is kept as confirmed until the account is signed out everywhere: when
 * that fails (the store down: 503), Try again answers 200 and finishes it, instead of calling the
 * link invalid while the address did change.
 *
 * Then, as after a reset: a security notice to the account (now the new address, saying when
 * Google or Microsoft links went: `credentialType: 'oidc'`), a mail to the old one (kept and
 * retried as the notice is, though it may be gone), and the account signed out everywhere,
 * sign-ins in progress first: portal sessions and sign-ins carry the old address, and some were
 * opened through the links.
 *
 * Every refusal is audited as `account.email_change_refused` with its reason (Refusal), naming
 * the address the change would have moved the account to: a link that keeps being refused (an
 * address taken meanwhile, an offboarded admin's request) is for the operators to see.
 */
export async function confirmEmailChange(
  ctx: Context,
  provider: Provider,
  input: { token: string; client: Pick<ClientInfo, 'ip' | 'userAgent'> },
): Promise<{ email: string }> {
  const found = await findPendingEmailChange(ctx, input.token);
  if (!found) throw emailChangeErrors.invalidToken();
  const { pending } = found;
  if (found.confirmed) {
    // Try again after a failure that followed the commit: only while the account still has the
    // new address (a concurrent confirmation may be between its claim and its commit).
    const account = await findAccountById(ctx.db, pending.accountId);
    if (!account || normalizeEmail(account.email) !== pending.newEmail) throw emailChangeErrors.invalidToken();
    await signOut(ctx, provider, found, found.raw);
    return { email: pending.newEmail };
  }

  const marker = confirmedMarker(found);
  const outcome = await commitMove(ctx, found, marker, input.client);
  if (typeof outcome === 'string') return refuse(ctx, found, outcome, input.client);

  // The notices first, as the change is committed: the store work below may fail, and must not
  // silence them.
  await notifyMoved(ctx, pending, outcome);
  await signOut(ctx, provider, found, marker);
  return { email: pending.newEmail };
}

/**
 * The change's transaction (moveAccount), the link claimed last. When the commit fails after the
 * claim, the database is asked whether this change is committed all the same (by this commit, or
 * by an earlier one reported failed whose link was given back): if so it is answered as made, the
 * link left claimed for the sign-out to spend. If not, or when the database does not answer, the
 * link goes back to what it was (restorePendingEmailChange, unless something else replaced it
 * meanwhile) and the failure stands. A failure before the claim (the claim's own store write
 * included) rolled the change back.
 */
async function commitMove(ctx: Context, found: FoundEmailChange, marker: string, client: Pick<ClientInfo, 'ip' | 'userAgent'>): Promise<Moved | Refusal> {
  const now = ctx.now();
  let claiming = false;
  let claimed = false;
  try {
    return await ctx.db.transaction(async (trx) => {
      const moved = await moveAccount(trx, found.pending, client, now);
      if (typeof moved === 'string') return moved;
      claiming = true;
      if (!(await claimPendingEmailChange(ctx, found, marker))) throw emailChangeErrors.invalidToken();
      claimed = true;
      return moved;
    });
  } catch (error) {
    if (!claiming) throw error;
    // Asked only when the link is this confirmation's: one that lost it (to another confirmation,
    // a withdrawal's claimCommittedEmailChange) leaves the finishing to whoever claimed it.
    const made = claimed ? await committedBefore(ctx.db, found.pending).catch(() => null) : null;
    if (made) {
      ctx.logger.warn({ ...failureOf(error), account_id: found.pending.accountId }, 'email change: the commit was reported failed but went through; finishing it');
      return made;
    }
    await restorePendingEmailChange(ctx, found, marker).catch((restoreError: unknown) =>
      ctx.logger.warn({ ...failureOf(restoreError) }, 'email change: the link could not be given back after a failed confirmation'),
    );
    throw error;
  }
}

/**
 * The notices of a committed change: the security notice to the account (now the new address;
 * an operator's change, so it names neither them nor the confirming browser), and the mail to
 * the old address, kept and retried as the notice is, the new address masked as in the notice of
 * the request: the old mailbox may be someone else's now.
 */
async function notifyMoved(ctx: Context, pending: PendingEmailChange, moved: Moved): Promise<void> {
  await notifySecurityChange(ctx, pending.accountId, { change: 'operator_email_changed', ...(moved.unlinked ? { credentialType: 'oidc' } : {}) }, null);
  await notifyAddress(ctx, pending.accountId, pending.previousEmail, { kind: 'email_changed', email: maskAddress(pending.newEmail) });
}

/**
 * For an admin's withdrawal (src/admin/accounts/email-change.service.ts): the account's pending
 * change when it was in fact committed (its commit reported failed and the link given back, the
 * database not answering then), or null. Such a change is not ended but finished as its
 * confirmation would have: the link is claimed as a confirmation claims it (so the console no
 * longer lists it), both addresses are told, and the account is signed out everywhere, which
 * spends the link. When that sign-out fails it throws, the link left claimed: the person's Try
 * again signs the account out, as after a confirmation whose sign-out failed, and so does a
 * withdrawal asked again (a confirmed link whose account is at its new address is signed out
 * here, with nothing told again: its notices went out when it was committed). Null when the link
 * changed meanwhile and the account's pending change is not, or no longer, a committed one.
 */
export async function claimCommittedEmailChange(ctx: Context, provider: Provider, accountId: string): Promise<PendingEmailChange | null> {
  const confirmed = await findAccountConfirmedEmailChange(ctx, accountId);
  if (confirmed) {
    // Committed and told, but its sign-out everywhere failed (or is under way): finished here as
    // the person's Try again would, rather than left signed in behind "nothing pending". Only
    // once the account is at the new address: a link claimed by a confirmation whose commit is
    // still out is not yet a change made.
    const account = await findAccountById(ctx.db, accountId);
    if (!account || normalizeEmail(account.email) !== confirmed.pending.newEmail) return null;
    await signOut(ctx, provider, confirmed, confirmed.raw);
    return confirmed.pending;
  }
  for (;;) {
    const found = await findAccountEmailChangeLink(ctx, accountId);
    if (!found) return null;
    const account = await findAccountById(ctx.db, accountId);
    if (!account || normalizeEmail(account.email) !== found.pending.newEmail) return null;
    const made = await committedBefore(ctx.db, found.pending);
    if (!made) return null;
    // Lost to a confirmation (which finishes it) or a newer request: look again.
    const marker = confirmedMarker(found);
    if (!(await claimPendingEmailChange(ctx, found, marker))) continue;
    await notifyMoved(ctx, found.pending, made);
    await signOut(ctx, provider, found, marker);
    return found.pending;
  }
}

/**
 * A refused confirmation spends the link (the operator asks again), then is recorded: after the
 * fact, as it only takes the link away; a store failing first leaves the link to be refused, and
 * recorded, again.
 */
async function refuse(ctx: Context, found: FoundEmailChange, reason: Refusal, client: Pick<ClientInfo, 'ip' | 'userAgent'>): Promise<never> {
  const { pending } = found;
  await spendPendingEmailChange(ctx, found);
  await recordAudit(ctx.db, {
    action: 'account.email_change_refused',
    target_account_id: pending.accountId,
    ip: client.ip,
    user_agent: client.userAgent,
    details: { email: pending.newEmail, reason, requested_by: pending.operatorId },
    at: ctx.now(),
  });
  throw reason === 'email_taken' ? emailChangeErrors.taken() : emailChangeErrors.invalidToken();
}

/**
 * Signs the moved account out everywhere, sign-ins in progress first, then forgets the confirmed
 * link (`marker`, as the store holds it): later tries answer invalid. Forgetting it is best
 * effort, as a marker left only lets Try again sign the account out once more.
 */
async function signOut(ctx: Context, provider: Provider, found: FoundEmailChange, marker: string): Promise<void> {
  const accountId = found.pending.accountId;
  try {
    await endSignInsInProgress(ctx, accountId);
    await signOutEverywhere(ctx, provider, accountId);
  } catch (err) {
    ctx.logger.error({ err, account_id: accountId }, 'account.email_changed: the email changed, but the account was not signed out everywhere; Try again on the link finishes it, or sign it out from the console');
    throw err;
  }
  await spendPendingEmailChange(ctx, { key: found.key, raw: marker }).catch((error: unknown) =>
    ctx.logger.warn({ ...failureOf(error) }, 'email change: the confirmed link could not be forgotten'),
  );
}
