import { findAccountByEmail, findAccountById, normalizeEmail } from '../../accounts/accounts.repository.ts';
import { createPendingEmailChange, emailChangeErrors, emailChangeTtlSeconds } from '../../accounts/pending-email-change.ts';
import type { Context } from '../../context.ts';
import { errors } from '../../http/app-error.ts';
import { sendMail, takeMailPoint } from '../../login/login-mail.ts';
import { failureOf } from '../../mail/mail-failure.ts';
import { chooseLanguage } from '../../mail/templates.ts';
import { recordOperatorAction } from '../operator-audit.ts';
import type { Operator } from '../operator-guard.ts';
import { spendResetMail } from './action-limits.ts';

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
 * deletion does. The current address is told at once, best effort (it may be the lost mailbox):
 * if the request is an attacker's talking support round, its holder hears of it within the hour.
 *
 * Budgets as for a reset mail: the operator's reset-mail budget (action-limits.ts), so no one
 * mails links to every account, and the new address's mail point, so no one floods a mailbox
 * through the console. Taken after the input was checked, before anything is kept or recorded.
 * The audit row comes before the link exists, so no link is ever without its record; it names
 * the new address, never the token.
 */
export async function requestEmailChange(ctx: Context, operator: Operator, accountId: string, requested: string): Promise<void> {
  const account = await findAccountById(ctx.db, accountId);
  if (!account) throw errors.notFound();
  const email = normalizeEmail(requested);
  if (normalizeEmail(account.email) === email) throw emailChangeErrors.unchanged();
  const holder = await findAccountByEmail(ctx.db, email);
  if (holder && holder.id !== account.id) throw emailChangeErrors.taken();
  await spendResetMail(ctx, operator);
  await takeMailPoint(ctx, email);

  await recordOperatorAction(ctx.db, operator, { action: 'operator.account.email_change_requested', target_account_id: account.id, details: { email } }, ctx.now());
  const token = await createPendingEmailChange(ctx, { accountId: account.id, previousEmail: normalizeEmail(account.email), newEmail: email, operatorId: operator.account_id });
  const language = chooseLanguage({ accountLocale: account.locale });
  // Awaited: the operator must know when the link did not leave (500), and ask again.
  await sendMail(ctx, email, language, {
    kind: 'email_change_link',
    link: `${ctx.config.publicUrl}/login/confirm-email/${token}`,
    minutes: emailChangeTtlSeconds / 60,
    email,
  });
  // Not awaited, and a failure only logged: the old mailbox is often the one that is gone.
  sendMail(ctx, account.email, language, { kind: 'email_change_requested', email }).catch((error: unknown) =>
    ctx.logger.warn({ ...failureOf(error) }, 'email change: the notice to the current address failed'),
  );
}
