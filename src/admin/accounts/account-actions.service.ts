import type Provider from 'oidc-provider';
import { clearLockedUntil, findAccountById, lockInForce } from '../../accounts/accounts.repository.ts';
import type { Context } from '../../context.ts';
import { lockAccountRow } from '../../credentials/totp/totp.repository.ts';
import { AppError, errors } from '../../http/app-error.ts';
import { endLock, lockedSeconds } from '../../login/lockout.ts';
import { sendMail, takeMailPoint } from '../../login/login-mail.ts';
import { endSignInsInProgress } from '../../login/login-session.ts';
import { createResetLink, resetTokenTtlSeconds } from '../../login/reset.service.ts';
import { chooseLanguage } from '../../mail/templates.ts';
import { forgetRememberedDevices } from '../../profile/device-revocation.ts';
import { notifySecurityChange } from '../../profile/security-notice.ts';
import { signOutEverywhere } from '../../profile/sessions.service.ts';
import { recordAfterChange, recordOperatorAction } from '../operator-audit.ts';
import { findOperatorRole, roleAllows, secondFactorTypes } from '../operators.repository.ts';
import type { Operator } from '../operator-guard.ts';
import { spendAccountAction, spendResetMail } from './action-limits.ts';

export const accountActionErrors = {
  passwordRequired: () =>
    new AppError('credential/password-required', 409, 'The password of a user account cannot be deleted'),
  secondFactorRequired: () =>
    new AppError('credential/second-factor-required', 409, "An operator account keeps an authenticator app or a passkey: revoke the operator role before deleting its last one"),
  notLocked: () => new AppError('account/not-locked', 409, 'The account is not locked: its lock has ended, or it was never locked'),
};

/**
 * "Reset Password" in the console: the same link and mail as the person's own "forgot password"
 * (a new link revokes older ones), in the account's language. The per-address mail budget
 * applies here too, so no one, operator or not, can flood an inbox through Nyckel; and each
 * operator has a budget of reset mails (action-limits.ts), so no one can mail every account.
 *
 * Support may send it only to an account without an operator role (assertMayActOn): each mail
 * spends the address's mail budget, which the colleague's own "forgot password" then finds spent
 * (429), and each new link revokes the one they may be about to use.
 *
 * The link and its audit row are written in one transaction, before the mail is sent: a link
 * exists from that moment whether or not the mail leaves, so a failed send (which still answers
 * 500) must not leave a link no record says an operator made.
 */
export async function sendResetEmail(ctx: Context, operator: Operator, accountId: string): Promise<void> {
  const account = await findAccountById(ctx.db, accountId);
  if (!account) throw errors.notFound();
  await assertMayActOn(ctx, operator, account.id);
  await spendResetMail(ctx, operator);
  await takeMailPoint(ctx, account.email);
  const { link, email } = await ctx.db.transaction(async (trx) => {
    const created = await createResetLink(ctx, account.id, { trx });
    await recordOperatorAction(trx, operator, { action: 'operator.password_reset.sent', target_account_id: account.id }, ctx.now());
    return created;
  });
  const language = chooseLanguage({ acceptLanguage: undefined, accountLocale: account.locale });
  // To the address read with the link (an email change may have moved the account since it was looked up).
  await sendMail(ctx, email, language, { kind: 'reset_link', link, minutes: resetTokenTtlSeconds / 60 });
}

/**
 * Support may unlock, sign out everywhere, end one session (src/admin/tokens/session-end.service.ts)
 * or send a reset mail only to an account that holds no operator role; an operator's account
 * (support or admin) needs an admin: support gets 403 `forbidden`, as the route guard answers a
 * role too low, and nothing changes, is spent or is recorded. Else a support operator could keep an admin out of the console mid-incident (a
 * sign-out ends the admin's console session and sign-ins in progress, as often as it is
 * repeated; reset mails spend the admin's mail budget, so their own "forgot password" is refused,
 * and revoke the link they are about to use), or end an admin's lock as often as a guesser asks:
 * ten guesses per unlock, up to the cap of 100, where the locks alone allow ten per ever longer
 * wait. The other account actions are admin only (credential deletion, email changes, the reset
 * links, which never list an operator's), so this is where support's reach ends.
 */
export async function assertMayActOn(ctx: Context, operator: Operator, accountId: string): Promise<void> {
  if (roleAllows(operator.role, 'admin')) return;
  if ((await findOperatorRole(ctx.db, accountId)) !== null) throw errors.forbidden();
}

/**
 * "Unlock" in the console: ends the account's sign-in lock (src/login/lockout.ts) and the count
 * of the 15-minute window, so the person can try again at once and the next lock takes ten new
 * failures; the accounts.locked_until mirror is cleared with it. The run of failures is kept
 * (endLock): the 100-in-a-row cap and the doubling of locks still count every failure since the
 * last sign-in or reset, so past the cap one more failure locks for 30 days again. A completed
 * reset does end the run, but it ends the lock by replacing the password, which makes the guesses
 * so far worthless; an unlock keeps the password, which is exactly why it must keep the run:
 * otherwise "unlock, nine guesses, unlock…" would have no cap.
 *
 * It opens nothing, since the password (and second factor) is still needed, so support may do it,
 * on accounts without an operator role (assertMayActOn), a few times an hour per account
 * (action-limits.ts).
 *
 * Only while a lock is in force: the store's (the lock sign-in obeys) or the mirror's (what the
 * console showed). Without one it answers 409 `account/not-locked` and changes, spends, records
 * and mails nothing. The lock has often just run out between the page load and the click, and the
 * operator is best told so; and an "unlock" of an account that is not locked would only restart
 * the window's count, a fresh set of guesses at the address for whoever is making them, while
 * telling the person "support lifted the lock" about a lock there was not. Checked before the
 * budget, as 403 and 404 are: a refusal costs nothing.
 *
 * Every unlock is audited with the lock end it found. The audit row is committed first, as the
 * reset mail is recorded before it is sent: a lock never ends without its record. Then the store's
 * lock ends, and only then the mirror: a store that fails answers 503 with the lock in force and
 * still shown in the console, with its Unlock button, so the operator can try again; the row
 * records that an operator tried. The mirror is cleared only while it holds the lock end read at
 * the start, so a lock set meanwhile (a failure landing after the store's lock ended) stays shown.
 */
export async function unlockAccount(ctx: Context, operator: Operator, accountId: string): Promise<void> {
  const account = await findAccountById(ctx.db, accountId);
  if (!account) throw errors.notFound();
  await assertMayActOn(ctx, operator, account.id);
  const now = ctx.now();
  const storeSeconds = await lockedSeconds(ctx, { email: account.email });
  const lockedUntil = lockInForce(account.locked_until, now) ?? (storeSeconds > 0 ? new Date(now.getTime() + storeSeconds * 1000) : null);
  if (!lockedUntil) throw accountActionErrors.notLocked();
  await spendAccountAction(ctx, operator, 'unlock', account.id);
  await recordOperatorAction(
    ctx.db,
    operator,
    { action: 'operator.account.unlocked', target_account_id: account.id, details: { locked_until: lockedUntil.toISOString() } },
    now,
  );
  await endLock(ctx, account.email);
  await clearLockedUntil(ctx.db, account.id, account.locked_until);
  // A fresh window of guesses at the address: the holder hears of it (if a misled support desk
  // unlocked it for a guesser, the activity list alone would tell no one in time).
  await notifySecurityChange(ctx, account.id, { change: 'operator_unlocked' }, null);
}

/**
 * "Sign out everywhere" in the console, for a person whose laptop or phone was stolen: ends the
 * account's sign-ins in progress, then every Nyckel portal session, OP session and application
 * grant (refresh tokens included), the browsers remembered for its TOTP step and the standing
 * of the browsers known to its address (a stolen laptop's cookie counts against the address
 * again), as a completed password reset does (reset.service.ts, in the same order: a sign-in finishing in between is
 * refused, or its new portal session ended). The password, credentials and a pending email
 * change are unchanged: the move to a new address may be the way out of the takeover, and an
 * admin withdraws a change that should not happen. Support
 * may do it to accounts without an operator role (assertMayActOn), a few times an hour per
 * account (action-limits.ts).
 *
 * Unlike unlock, the reset mail and credential deletion, which give something (a fresh window of
 * guesses, a link that sets the password, one factor fewer) and so are recorded before they take
 * effect, this only takes access away: its row follows the change and says what it ended, and a
 * failure of either is logged as an error for the operator to retry (recordAfterChange); a retry
 * is harmless (nothing is left to end: applications 0) and writes the row.
 */
export async function signAccountOutEverywhere(
  ctx: Context,
  provider: Provider,
  operator: Operator,
  accountId: string,
): Promise<{ applications: number }> {
  const account = await findAccountById(ctx.db, accountId);
  if (!account) throw errors.notFound();
  await assertMayActOn(ctx, operator, account.id);
  await spendAccountAction(ctx, operator, 'sign-out-everywhere', account.id);
  const ended = await recordAfterChange(
    ctx,
    operator,
    {
      action: 'operator.account.signed_out',
      targetAccountId: account.id,
      details: ({ applications }) => ({ applications }),
      logged: (result) => ({ applications: result?.applications ?? null }),
      failed: 'the sign-out failed, perhaps part way; not audited',
      unrecorded: 'signed out, but the audit row was not written',
    },
    async () => {
      await endSignInsInProgress(ctx, account.id);
      return signOutEverywhere(ctx, provider, account.id);
    },
  );
  // After the row: the notice says what was done, and a failure to keep it must not mislead the operator.
  await notifySecurityChange(ctx, account.id, { change: 'operator_signed_out' }, null);
  return ended;
}

/**
 * Removes one credential of an account. It must belong to that account (else 404, so ids of other
 * accounts' credentials cannot be probed), and the password of a User account stays: spec section 4
 * "Credential deletion allowed except password credentials on user accounts". An operator
 * account keeps its last TOTP or passkey, as in the profile (credential-removal.ts): the console
 * only opens to a second factor, and an operator without one would be one phished password and
 * one enrolment away from it. To replace a lost authenticator, revoke the role first.
 *
 * The account row is locked before the credential is read, as every credential removal and role
 * grant does, so two removals cannot each leave the other last. First, not with the credential
 * (FOR UPDATE on the join locked the credential's row before the account's): every other writer
 * (a reset, a password change, the person's own removal) locks the account and then its
 * credentials, and the opposite order deadlocks with them.
 *
 * After the commit the holder is mailed a notice naming what support removed (never the operator
 * or where they were). When the account's last TOTP goes, its remembered devices go too, as when
 * the person removes it themselves (credential-removal.ts): they were remembered on the strength
 * of that authenticator, and would otherwise skip the code again for the next one enrolled. Then
 * the account is signed out everywhere, as by "Sign out everywhere": support deletes a factor
 * because its device was lost or stolen, and the sessions, refresh tokens and (for an operator's
 * account) console that the device opened must not outlive it. A session records how it signed
 * in, not with which credential, so all of them go; the person signs in again with what is left.
 * A store failing in that step answers 503 with the credential gone: the operator then signs the
 * account out everywhere, which the error log line says.
 */
export async function deleteAccountCredential(ctx: Context, provider: Provider, operator: Operator, accountId: string, credentialId: string): Promise<void> {
  const { type, lastTotpRemoved } = await ctx.db.transaction(async (trx) => {
    if (!(await lockAccountRow(trx, accountId))) throw errors.notFound();
    const row = (await trx('credentials as c')
      .join('accounts as a', 'a.id', 'c.account_id')
      .where({ 'c.id': credentialId, 'c.account_id': accountId })
      .first('c.id', 'c.type', 'c.provider', 'a.is_user')) as { id: string; type: string; provider: string | null; is_user: boolean } | undefined;
    if (!row) throw errors.notFound();
    if (row.type === 'password' && row.is_user) throw accountActionErrors.passwordRequired();
    if ((secondFactorTypes as readonly string[]).includes(row.type) && (await findOperatorRole(trx, accountId)) !== null) {
      const others = await trx('credentials').where({ account_id: accountId }).whereIn('type', secondFactorTypes).whereNot({ id: row.id }).first('id');
      if (!others) throw accountActionErrors.secondFactorRequired();
    }
    await trx('credentials').where({ id: row.id }).delete();
    await recordOperatorAction(
      trx,
      operator,
      {
        action: 'operator.credential.deleted',
        target_account_id: accountId,
        details: { credential_id: row.id, type: row.type, provider: row.provider },
      },
      ctx.now(),
    );
    const lastTotp = row.type === 'totp' && !(await trx('credentials').where({ account_id: accountId, type: 'totp' }).first('id'));
    return { type: row.type, lastTotpRemoved: lastTotp };
  });
  // The notice first, as the change is committed: the store work below may fail, and must not silence it.
  await notifySecurityChange(ctx, accountId, { change: 'operator_credential_removed', credentialType: type }, null);
  if (lastTotpRemoved) {
    await forgetRememberedDevices(ctx, accountId, { reason: 'operator_totp_deleted', actorId: operator.account_id, ip: operator.ip, userAgent: operator.user_agent });
  }
  try {
    await endSignInsInProgress(ctx, accountId);
    await signOutEverywhere(ctx, provider, accountId);
  } catch (err) {
    ctx.logger.error(
      { err, operator_id: operator.account_id, target_account_id: accountId },
      'operator.credential.deleted: the credential is gone, but the account was not signed out everywhere; sign it out from the console',
    );
    throw err;
  }
}
