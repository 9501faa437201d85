import type Provider from 'oidc-provider';
import { findAccountByEmail, normalizeEmail } from '../accounts/accounts.repository.ts';
import { emailChangeErrors, takePendingEmailChange } from '../accounts/pending-email-change.ts';
import { findOperatorRole } from '../admin/operators.repository.ts';
import { recordAudit } from '../audit/audit.ts';
import type { Context } from '../context.ts';
import { deleteOidcCredentials } from '../credentials/oidc/oidc-credentials.repository.ts';
import { lockAccountRow } from '../credentials/totp/totp.repository.ts';
import { failureOf } from '../mail/mail-failure.ts';
import { chooseLanguage } from '../mail/templates.ts';
import { notifySecurityChange } from '../profile/security-notice.ts';
import { signOutEverywhere } from '../profile/sessions.service.ts';
import { sendMail } from './login-mail.ts';
import { endSignInsInProgress } from './login-session.ts';
import { revokeResetTokens, type ClientInfo } from './reset.service.ts';

/**
 * The link an operator's "Change email" mailed to the new address (src/admin/accounts/
 * email-change.service.ts), confirmed from the portal's page: opening the link alone changes
 * nothing, since mail scanners fetch links. The pending change is taken first (getDel), so a link
 * works once, and a refused confirmation (406, 409) spends it too: the operator asks again.
 *
 * The operator who asked must still be an admin, else 406 as for a spent link: a change asked for
 * by an admin whose role was revoked since (offboarded, or found out) is not carried out on their
 * word, as impersonation re-checks its operator when the hand-off is opened.
 *
 * In one transaction holding the account's row (as every writer of its password and links does):
 * - the account must still have the address the operator saw, else 406: something changed it
 *   meanwhile, and a confirmation must not undo that;
 * - the new address must still be free, else 409 `account/email-taken` (the unique index answers
 *   the same for an account created with it at this very moment);
 * - the email is set and marked verified (this link proved the mailbox), and the account's reset
 *   links die: one mailed to the old address must not set the password after the move;
 * - every linked Google or Microsoft identity is unlinked, each audited as `credential.removed`
 *   (via `email_change`). They were mostly linked through the old address, often a work
 *   account of the employer's Workspace or Entra tenant: whoever runs that domain keeps that
 *   identity, and through the link would go on signing in as the person, now by typing the new
 *   address. Which of them are the person's own cannot be told from here, so all go; the person
 *   links again from the profile.
 * Then, as after a reset: a security notice to the account (now the new address, saying when the
 * links went: `credentialType: 'oidc'`), a mail to the old one (best effort: it may be gone), and
 * the account signed out everywhere, sign-ins in progress first: portal sessions and sign-ins
 * carry the old address, and some were opened through the links.
 */
export async function confirmEmailChange(
  ctx: Context,
  provider: Provider,
  input: { token: string; client: Pick<ClientInfo, 'ip' | 'userAgent'> },
): Promise<{ email: string }> {
  const pending = await takePendingEmailChange(ctx, input.token);
  if (!pending) throw emailChangeErrors.invalidToken();
  if ((await findOperatorRole(ctx.db, pending.operatorId)) !== 'admin') throw emailChangeErrors.invalidToken();
  const now = ctx.now();

  const { locale, unlinked } = await ctx.db.transaction(async (trx) => {
    if (!(await lockAccountRow(trx, pending.accountId))) throw emailChangeErrors.invalidToken();
    const account = (await trx('accounts').where({ id: pending.accountId }).first('email', 'locale')) as { email: string; locale: string | null };
    if (normalizeEmail(account.email) !== pending.previousEmail) throw emailChangeErrors.invalidToken();
    const holder = await findAccountByEmail(trx, pending.newEmail);
    if (holder && holder.id !== pending.accountId) throw emailChangeErrors.taken();
    try {
      // A savepoint: the unique violation of a racing insert must not abort the whole transaction.
      await trx.transaction((sp) => sp('accounts').where({ id: pending.accountId }).update({ email: pending.newEmail, email_verified: true, updated_at: now }));
    } catch (error) {
      if ((error as { code?: string }).code === '23505') throw emailChangeErrors.taken();
      throw error;
    }
    await revokeResetTokens(trx, pending.accountId);
    const links = await deleteOidcCredentials(trx, pending.accountId);
    await recordAudit(trx, {
      action: 'account.email_changed',
      target_account_id: pending.accountId,
      ip: input.client.ip,
      user_agent: input.client.userAgent,
      details: { previous_email: pending.previousEmail, email: pending.newEmail, requested_by: pending.operatorId },
      at: now,
    });
    for (const link of links) {
      await recordAudit(trx, {
        action: 'credential.removed',
        target_account_id: pending.accountId,
        ip: input.client.ip,
        user_agent: input.client.userAgent,
        details: { credential_id: link.id, type: 'oidc', provider: link.provider, via: 'email_change' },
        at: now,
      });
    }
    return { locale: account.locale, unlinked: links.length > 0 };
  });

  // The notice first, as the change is committed: the store work below may fail, and must not
  // silence it. An operator's change: the notice names neither them nor the confirming browser.
  await notifySecurityChange(ctx, pending.accountId, { change: 'operator_email_changed', ...(unlinked ? { credentialType: 'oidc' } : {}) }, null);
  const language = chooseLanguage({ accountLocale: locale });
  sendMail(ctx, pending.previousEmail, language, { kind: 'email_changed', email: pending.newEmail }).catch((error: unknown) =>
    ctx.logger.warn({ ...failureOf(error) }, 'email change: the mail to the previous address failed'),
  );
  try {
    await endSignInsInProgress(ctx, pending.accountId);
    await signOutEverywhere(ctx, provider, pending.accountId);
  } catch (err) {
    ctx.logger.error({ err, account_id: pending.accountId }, 'account.email_changed: the email changed, but the account was not signed out everywhere; sign it out from the console');
    throw err;
  }
  return { email: pending.newEmail };
}
