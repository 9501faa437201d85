import type Provider from 'oidc-provider';
import { findAccountByEmail, findAccountById, normalizeEmail } from '../../accounts/accounts.repository.ts';
import {
  createPendingEmailChange,
  emailChangeErrors,
  emailChangeTtlSeconds,
  endPendingEmailChange,
  findAccountPendingEmailChange,
  recordCancelledEmailChange,
} from '../../accounts/pending-email-change.ts';
import type { Context } from '../../context.ts';
import { errors } from '../../http/app-error.ts';
import { claimCommittedEmailChange } from '../../login/email-change.service.ts';
import { sendMail, takeMailPoint } from '../../login/login-mail.ts';
import { maskAddress } from '../../mail/mailer.ts';
import { chooseLanguage } from '../../mail/templates.ts';
import { notifyAddress } from '../../profile/security-notice.ts';
import { recordOperatorAction } from '../operator-audit.ts';
import { findOperatorRole } from '../operators.repository.ts';
import type { Operator } from '../operator-guard.ts';
import { summaryOf, type PendingEmailChangeSummary } from './account-listing.service.ts';
import { spendResetMail, spendSearch } from './action-limits.ts';

/**
 * "Change email" in the console, for a person whose address changed (a new employer domain, a
 * mailbox that is gone): every code, reset link and notice goes to accounts.email, so without
 * this every way back in dead-ends at the old mailbox.
 *
 * Nothing changes here. The new address gets a link (single use, one hour) and the account's
 * email changes only when it is opened and confirmed (src/login/email-change.service.ts): the
 * operator's word is not proof that the new mailbox is the person's, and a mistyped address must
 * not hand the account to a stranger. The change moves every way in that runs through the mailbox,
 * so it takes an admin with a recent second-factor sign-in (the route's guard), as a credential
 * deletion does. The current address is told at once, as a kept and retried notice (it may be
 * the lost mailbox): if the request is an attacker's talking support round, its holder hears of
 * it within the hour.
 *
 * Not for an operator's account (support or admin): 409 `account/operator-account`, revoke the
 * role first, as for deleting an operator's last second factor. An admin could otherwise move a
 * colleague's account, and with it the console, to a mailbox of their choosing, which impersonation
 * refuses for operators too; nothing is recorded or mailed.
 *
 * Budgets as for a reset mail: the operator's reset-mail budget (action-limits.ts), so no one
 * mails links to every account, and the new address's mail point, so no one floods a mailbox
 * through the console. Taken after the input was checked, before anything is kept or recorded.
 * The audit row comes before the link exists, so no link is ever without its record; it names
 * the new address, never the token. A pending change the new one replaced is recorded as
 * `account.email_change_cancelled` (reason `replaced`), once the swap says which it was.
 */
export async function requestEmailChange(ctx: Context, operator: Operator, accountId: string, requested: string): Promise<void> {
  const account = await findAccountById(ctx.db, accountId);
  if (!account) throw errors.notFound();
  if ((await findOperatorRole(ctx.db, account.id)) !== null) throw emailChangeErrors.operatorAccount();
  const email = normalizeEmail(requested);
  if (normalizeEmail(account.email) === email) throw emailChangeErrors.unchanged();
  const holder = await findAccountByEmail(ctx.db, email);
  if (holder && holder.id !== account.id) throw emailChangeErrors.taken();
  await spendResetMail(ctx, operator);
  await takeMailPoint(ctx, email);

  await recordOperatorAction(ctx.db, operator, { action: 'operator.account.email_change_requested', target_account_id: account.id, details: { email } }, ctx.now());
  const { token, replaced } = await createPendingEmailChange(ctx, { accountId: account.id, previousEmail: normalizeEmail(account.email), newEmail: email, operatorId: operator.account_id });
  if (replaced) {
    await recordCancelledEmailChange(ctx, replaced, { reason: 'replaced', actorId: operator.account_id, ip: operator.ip, userAgent: operator.user_agent });
  }
  const language = chooseLanguage({ accountLocale: account.locale });
  // Awaited: the operator must know when the link did not leave (500), and ask again.
  await sendMail(ctx, email, language, {
    kind: 'email_change_link',
    link: `${ctx.config.publicUrl}/login/confirm-email/${token}`,
    minutes: emailChangeTtlSeconds / 60,
    email,
  });
  // Kept and retried as a security notice, never holding up the answer: the old mailbox is often
  // the one that is gone, but when it is only down its holder must still hear of the request. The
  // new address masked (n***@example.com): the old mailbox may be someone else's now (a former
  // employer's), who has no business learning where the person went.
  await notifyAddress(ctx, account.id, account.email, { kind: 'email_change_requested', email: maskAddress(email) });
}

/**
 * "Withdraw" a pending change: the link mailed to the new address stops working at once. For a
 * request that should not have been made (the wrong person on the phone, a mistyped address whose
 * holder complains): asking again for the current address is refused as unchanged and would not
 * end it. Admin, as the request; no recent sign-in needed, since it only takes something away.
 * 404 `account/no-pending-email-change` when there is none (confirmed, expired, already ended),
 * which records nothing. Also while the link is being confirmed at that very moment: the person
 * came first, and the change stands if its commit goes through; if it fails, the link is not given
 * back for the portal's Try again (endPendingEmailChange), so the answer holds either way.
 *
 * The row follows the withdrawal, as a sign-out's does: it names the address the change would
 * have moved the account to. A failure between the two is logged with what was withdrawn.
 *
 * Not a change already made: a confirmation whose commit went through but was reported failed,
 * while the database did not answer, gave its link back, so the console lists it as pending
 * though the account has moved. Withdrawing it would leave the person moved with the old address
 * never told and the account signed in everywhere. So when the account is at the pending
 * change's address and that change's own `account.email_changed` row is there
 * (claimCommittedEmailChange), it is finished as its confirmation would have: the link is taken
 * as confirmed, both addresses are told, and the account is signed out everywhere; the answer is
 * 409 `account/email-change-made`; recorded as `operator.account.email_change_finished` (the
 * operator's doing signed the account out), never as withdrawn. The same answer, with
 * the sign-out done and no one told twice, for a change committed whose confirmation has not
 * signed the account out: it is doing so at that moment, or it failed (the store down) and the
 * person never tried again; the console no longer lists it, and a withdrawal finishes it.
 */
export async function withdrawEmailChange(ctx: Context, provider: Provider, operator: Operator, accountId: string): Promise<{ email: string }> {
  const account = await findAccountById(ctx.db, accountId);
  if (!account) throw errors.notFound();
  const finished = await claimCommittedEmailChange(ctx, provider, account.id);
  if (finished) {
    // The change is finished whatever becomes of its row, and the answer says so: a row that
    // could not be written is left to the log, as asking again would find nothing left to finish.
    await recordOperatorAction(
      ctx.db,
      operator,
      { action: 'operator.account.email_change_finished', target_account_id: account.id, details: { email: finished.newEmail } },
      ctx.now(),
    ).catch((err: unknown) =>
      ctx.logger.error(
        { err, operator_id: operator.account_id, target_account_id: account.id, email: finished.newEmail },
        'operator.account.email_change_finished: the account was signed out everywhere, but the audit row was not written',
      ),
    );
    throw emailChangeErrors.alreadyMade();
  }
  const withdrawn = await endPendingEmailChange(ctx, account.id);
  if (!withdrawn) throw emailChangeErrors.nonePending();
  try {
    await recordOperatorAction(
      ctx.db,
      operator,
      { action: 'operator.account.email_change_withdrawn', target_account_id: account.id, details: { email: withdrawn.newEmail } },
      ctx.now(),
    );
  } catch (err) {
    ctx.logger.error(
      { err, operator_id: operator.account_id, target_account_id: account.id },
      'operator.account.email_change_withdrawn: the change was withdrawn, but the audit row was not written',
    );
    throw err;
  }
  return { email: withdrawn.newEmail };
}

/**
 * The account's pending change as the listing shows it (the new address and when its link stops
 * working), for the console to show right after a request. Support may read it, as the listing;
 * only an admin requests or withdraws. It answers any account's new address by the account's id,
 * with no search before it, so it is spent and audited as one: a point of the operator's search
 * budget (action-limits.ts) before the store is read, and an `operator.account.viewed` row naming
 * the account when an address is answered. 404 `account/no-pending-email-change` when none waits
 * (spent, not recorded: no address left), `not_found` for an unknown account (free).
 */
export async function readPendingEmailChange(ctx: Context, operator: Operator, accountId: string): Promise<PendingEmailChangeSummary> {
  const account = await findAccountById(ctx.db, accountId);
  if (!account) throw errors.notFound();
  await spendSearch(ctx, operator);
  const pending = summaryOf(await findAccountPendingEmailChange(ctx, account.id));
  if (!pending) throw emailChangeErrors.nonePending();
  await recordOperatorAction(
    ctx.db,
    operator,
    { action: 'operator.account.viewed', target_account_id: account.id, details: { read: 'pending_email_change' } },
    ctx.now(),
  );
  return pending;
}
