import type Provider from 'oidc-provider';
import { findAccountByEmail, findAccountById, normalizeEmail, type Queryable } from '../accounts/accounts.repository.ts';
import {
  claimPendingEmailChange,
  confirmedMarker,
  emailChangeErrors,
  emailChangeTtlSeconds,
  findAccountConfirmedEmailChange,
  findAccountEmailChangeLink,
  findPendingEmailChange,
  restorePendingEmailChange,
  spendPendingEmailChange,
  type FoundEmailChange,
  type PendingEmailChange,
} from '../accounts/pending-email-change.ts';
import { findOperatorRole } from '../admin/operators.repository.ts';
import { recordAudit } from '../audit/audit.ts';
import type { Context } from '../context.ts';
import { deleteOidcCredentials } from '../credentials/oidc/oidc-credentials.repository.ts';
import { lockAccountRow } from '../credentials/totp/totp.repository.ts';
import { failureOf } from '../mail/mail-failure.ts';
import { maskAddress } from '../mail/mailer.ts';
import { notifyAddress, notifySecurityChange } from '../profile/security-notice.ts';
import { signOutEverywhere } from '../profile/sessions.service.ts';
import { endSignInsInProgress } from './login-session.ts';
import { revokeResetTokens, type ClientInfo } from './reset.service.ts';

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

interface Moved {
  /** Google or Microsoft links were removed. */
  unlinked: boolean;
}

/**
 * The change, holding the account's row (as every writer of its password and links does). This
 * very change committed already (committedBefore) is answered as made, writing nothing again,
 * before the requester's role is looked at: it was valid when committed.
 * Else answers the refusal, having written nothing, unless:
 * - the operator who asked is still an admin (`requester_not_admin`, 406);
 * - the account still has the address the operator saw (`address_changed`, 406): something
 *   changed it meanwhile, and a confirmation must not undo that;
 * - the account still holds no operator role (`operator_account`, 406): one granted since the
 *   request would otherwise let the change move an operator's account (the request refuses those);
 * - the new address is still free (`email_taken`, 409 `account/email-taken`; the unique index
 *   answers the same for an account created with it at this very moment).
 * Else the email is set and marked verified (this link proved the mailbox), and the account's
 * reset links die: one mailed to the old address must not set the password after the move. Every
 * linked Google or Microsoft identity is unlinked, each audited as `credential.removed` (via
 * `email_change`). They were mostly linked through the old address, often a work account of the
 * employer's Workspace or Entra tenant: whoever runs that domain keeps that identity, and through
 * the link would go on signing in as the person, now by typing the new address. Which of them are
 * the person's own cannot be told from here, so all go; the person links again from the profile.
 */
async function moveAccount(trx: Queryable, pending: PendingEmailChange, client: Pick<ClientInfo, 'ip' | 'userAgent'>, now: Date): Promise<Moved | Refusal> {
  if (!(await lockAccountRow(trx, pending.accountId))) return 'account_gone';
  const account = (await trx('accounts').where({ id: pending.accountId }).first('email')) as { email: string };
  if (normalizeEmail(account.email) === pending.newEmail) {
    const made = await committedBefore(trx, pending);
    if (made) return made;
  }
  if ((await findOperatorRole(trx, pending.operatorId)) !== 'admin') return 'requester_not_admin';
  if (normalizeEmail(account.email) !== pending.previousEmail) return 'address_changed';
  if ((await findOperatorRole(trx, pending.accountId)) !== null) return 'operator_account';
  const holder = await findAccountByEmail(trx, pending.newEmail);
  if (holder && holder.id !== pending.accountId) return 'email_taken';
  try {
    // A savepoint: the unique violation of a racing insert must not abort the whole transaction.
    await trx.transaction((sp) => sp('accounts').where({ id: pending.accountId }).update({ email: pending.newEmail, email_verified: true, updated_at: now }));
  } catch (error) {
    if ((error as { code?: string }).code === '23505') return 'email_taken';
    throw error;
  }
  await revokeResetTokens(trx, pending.accountId);
  const links = await deleteOidcCredentials(trx, pending.accountId);
  await recordAudit(trx, {
    action: 'account.email_changed',
    target_account_id: pending.accountId,
    ip: client.ip,
    user_agent: client.userAgent,
    details: { previous_email: pending.previousEmail, email: pending.newEmail, requested_by: pending.operatorId, ...changeIdOf(pending) },
    at: now,
  });
  for (const link of links) {
    await recordAudit(trx, {
      action: 'credential.removed',
      target_account_id: pending.accountId,
      ip: client.ip,
      user_agent: client.userAgent,
      details: { credential_id: link.id, type: 'oidc', provider: link.provider, via: 'email_change', ...changeIdOf(pending) },
      at: now,
    });
  }
  return { unlinked: links.length > 0 };
}

/** The change's id for its audit rows: a random id, never the token or a hash of it (audit.ts). */
const changeIdOf = (pending: PendingEmailChange) => (pending.changeId === undefined ? {} : { change_id: pending.changeId });

/**
 * This change as its own earlier confirmation committed it, told by the `change_id` of its
 * `account.email_changed` row (and of the `credential.removed` rows, which say whether Google or
 * Microsoft links went), or null: a change kept before changes had ids cannot be told from
 * another's, and is not taken for its own. Only rows of about the link's lifetime are read, off
 * the (target_account_id, at) index, as anyone can add rows about an account (a failed sign-in
 * naming it): from an hour before the link was made, as the instance that made it may have a clock
 * ahead of this one's.
 */
async function committedBefore(trx: Queryable, pending: PendingEmailChange): Promise<Moved | null> {
  if (pending.changeId === undefined) return null;
  const rows = (await trx('audit_events')
    .where({ target_account_id: pending.accountId })
    .where('at', '>=', new Date(pending.expiresAt - 2 * emailChangeTtlSeconds * 1000))
    .whereIn('action', ['account.email_changed', 'credential.removed'])
    .whereRaw("details->>'change_id' = ?", [pending.changeId])
    .select('action')) as { action: string }[];
  if (!rows.some((row) => row.action === 'account.email_changed')) return null;
  return { unlinked: rows.some((row) => row.action === 'credential.removed') };
}

/** Why a confirmation was refused; each answers 406 `invalid_token` but a taken address (409). */
type Refusal = 'requester_not_admin' | 'account_gone' | 'address_changed' | 'operator_account' | 'email_taken';

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
