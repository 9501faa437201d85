import { createHash, randomBytes, randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  clearPasswordResetRequired,
  findAccountByEmail,
  findAccountById,
  normalizeEmail,
  setLockedUntil,
  type Queryable,
} from '../accounts/accounts.repository.ts';
import type Provider from 'oidc-provider';
import { recordAudit } from '../audit/audit.ts';
import type { Context } from '../context.ts';
import { setPasswordHash } from '../credentials/credentials.repository.ts';
import { hashPassword } from '../credentials/password/hashing.ts';
import { lockAccountRow } from '../credentials/totp/totp.repository.ts';
import { assertPasswordPolicy } from '../credentials/password/policy.ts';
import { AppError } from '../http/app-error.ts';
import { rateLimitsFor } from '../http/rate-limit.ts';
import { failureOf } from '../mail/mail-failure.ts';
import { chooseLanguage } from '../mail/templates.ts';
import { notifySecurityChange } from '../profile/security-notice.ts';
import { signOutEverywhere } from '../profile/sessions.service.ts';
import { budgetKey, clearFailures, guesserFor } from './lockout.ts';
import { sendMail, takeMailPoint } from './login-mail.ts';
import { endSignInsInProgress } from './login-session.ts';

export const resetTokenTtlSeconds = 3600;

export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
  acceptLanguage: string | undefined;
  /** This browser's `nyckel_known` cookie (known-browser.ts), unverified. */
  knownBrowser?: string | undefined;
}

const resetErrors = {
  invalidToken: () => new AppError('invalid_token', 406, 'Invalid or expired token'),
  failed: () => new AppError('reset_failed', 406, 'Password reset failed'),
};

/** Only the SHA-256 of a token is stored; the token itself exists only in the emailed link. */
function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A new, unused link kills every older unused one; so does any password change. */
export async function revokeResetTokens(db: Queryable, accountId: string): Promise<void> {
  await db('password_reset_tokens').where({ account_id: accountId }).whereNull('used_at').delete();
}

export interface ResetLink {
  link: string;
  expiresAt: Date;
  /**
   * The account's address, read holding its row: the one address the link may be mailed to. An
   * email change confirmed after the account was looked up (by its old address) has moved it, and
   * one confirmed later revokes this link (it locks the row too), so no link reaches a mailbox the
   * account left.
   */
  email: string;
}

/**
 * Creates a single-use reset link valid one hour and revokes older ones. The link is built from
 * PUBLIC URL config, never from the request's Host header (a forged Host would otherwise mail
 * victims a link to an attacker's site). Used by the reset request, the PasswordResetRequired
 * step and the operator console.
 *
 * The account's row is locked first, as every writer of its password and links does (account,
 * then credentials, then links): the new link's foreign key check would otherwise wait for a
 * password change holding the account while the change waits for the old link this deleted, a
 * deadlock. The lock also makes two links made at once (an operator's reset mail and the person's
 * own "forgot password") take turns: under READ COMMITTED neither would otherwise see the other's
 * link to revoke it, and both would stay open (migration 008's unique index would refuse the
 * second with a 500). Inside the caller's transaction when given one (as a savepoint), so the lock
 * lasts until that commits.
 */
export async function createResetLink(
  ctx: Pick<Context, 'db' | 'config' | 'now' | 'secretBox'>,
  accountId: string,
  options: { type?: string | null | undefined; trx?: Queryable } = {},
): Promise<ResetLink> {
  const token = randomBytes(32).toString('base64url');
  const now = ctx.now();
  const expiresAt = new Date(now.getTime() + resetTokenTtlSeconds * 1000);
  const email = await (options.trx ?? ctx.db).transaction(async (trx) => {
    await lockAccountRow(trx, accountId);
    const account = (await trx('accounts').where({ id: accountId }).first('email')) as { email: string } | undefined;
    await revokeResetTokens(trx, accountId);
    await trx('password_reset_tokens').insert({
      account_id: accountId,
      token_hash: hashToken(token),
      // Sealed (not hashed) so the operator console can list active links; see migration 002.
      token_sealed: ctx.secretBox.seal(token),
      type: options.type ?? null,
      created_at: now,
      expires_at: expiresAt,
    });
    // Checked by the insert's foreign key: the account exists.
    return account!.email;
  });
  return { link: `${ctx.config.publicUrl}/login/set-password/${token}`, expiresAt, email };
}

/**
 * "Forgot password". The answer is the same whether or not the address has an account: known
 * accounts get a link, unknown addresses get nothing. Both paths do the same lookups and audit
 * write, the mail is sent after answering, and the answer waits for a random 100–200 ms floor that
 * is far longer than the one extra insert, so timing does not tell the two apart.
 */
export async function requestPasswordReset(
  ctx: Context,
  input: { email: string; type?: string | undefined; client: ClientInfo },
): Promise<void> {
  const floor = sleep(randomInt(100, 200));
  const email = normalizeEmail(input.email);
  // A browser that signed in to the address has budgets of its own: whoever spends the address's
  // (a mail bomb, or on purpose) does not keep its owner from a reset there.
  const budget = budgetKey(await guesserFor(ctx, email, input.client.knownBrowser));
  await rateLimitsFor(ctx).consume('email', budget);
  await takeMailPoint(ctx, budget);

  const account = await findAccountByEmail(ctx.db, email);
  const link = account ? await createResetLink(ctx, account.id, { type: input.type }) : null;
  await recordAudit(ctx.db, {
    action: 'password_reset.requested',
    target_account_id: account?.id ?? null,
    ip: input.client.ip,
    user_agent: input.client.userAgent,
    details: { email },
    at: ctx.now(),
  });
  if (account && link) {
    const language = chooseLanguage({ acceptLanguage: input.client.acceptLanguage, accountLocale: account.locale });
    // The mail point was taken above for every address alike, known or not.
    // To the address that holds the account now (link.email), not the one asked about: an email
    // change confirmed since the lookup moved the account away from it.
    sendMail(ctx, link.email, language, { kind: 'reset_link', link: link.link, minutes: resetTokenTtlSeconds / 60 }).catch(
      (error: unknown) => ctx.logger.error({ ...failureOf(error) }, 'reset mail failed'),
    );
  }
  await floor;
}

async function findLiveToken(db: Queryable, token: string, now: Date) {
  const row = await db('password_reset_tokens')
    .where({ token_hash: hashToken(token) })
    .whereNull('used_at')
    .where('expires_at', '>', now)
    .first('id', 'account_id', 'type');
  return (row as { id: string; account_id: string; type: string | null } | undefined) ?? null;
}

/**
 * Marks the link used, only while it still is unused and unexpired: false when another
 * confirmation spent it or a new link or password change revoked it first. Call it holding the
 * account's row, so whichever of two confirmations locks the account first is the one that wins.
 */
async function spendToken(trx: Queryable, id: string, now: Date): Promise<boolean> {
  const spent = await trx('password_reset_tokens')
    .where({ id })
    .whereNull('used_at')
    .where('expires_at', '>', now)
    // A spent link is no longer shown to operators.
    .update({ used_at: now, token_sealed: null });
  return spent === 1;
}

/** For the set-password page: 406 `invalid_token` unless the token is live. */
export async function checkResetToken(ctx: Context, token: string): Promise<{ email_hint: string }> {
  const row = await findLiveToken(ctx.db, token, ctx.now());
  const account = row ? await findAccountById(ctx.db, row.account_id) : null;
  if (!account) throw resetErrors.invalidToken();
  return { email_hint: maskEmail(account.email) };
}

/**
 * Sets the new password from a reset link. The token is spent atomically (one of two concurrent
 * confirmations wins), the account's other links die, sign-ins in progress are ended (one that
 * proved the old password does not finish its second factor), the account is signed out
 * everywhere (its portal and OP sessions, every application's grant and refresh tokens, its
 * remembered devices) and a notice is mailed: "your password was changed", or, when the link set
 * the account's first password (a set-password link), the security notice of a password added.
 * A reset never signs anyone in: the person signs in afterwards, through MFA when enrolled.
 */
export async function confirmPasswordReset(
  ctx: Context,
  provider: Provider,
  input: { token: string; password: string; client: ClientInfo },
): Promise<{ type: string | null }> {
  const normalized = assertPasswordPolicy(input.password);
  const now = ctx.now();
  if (!(await findLiveToken(ctx.db, input.token, now))) throw resetErrors.failed();
  const hash = await hashPassword(normalized);

  const row = await ctx.db.transaction(async (trx) => {
    const live = await findLiveToken(trx, input.token, now);
    if (!live) return null;
    // The account before its link, as a password change or a new link locks them: the other order
    // deadlocks with those (40P01).
    await lockAccountRow(trx, live.account_id);
    if (!(await spendToken(trx, live.id, now))) return null;
    // A set-password link (a Stakeholder turning passwords on) creates the account's first one.
    const { created } = await setPasswordHash(trx, live.account_id, hash, now);
    await clearPasswordResetRequired(trx, live.account_id, now);
    // The console's mirror of the lock that clearFailures ends below.
    await setLockedUntil(trx, live.account_id, null);
    await revokeResetTokens(trx, live.account_id);
    await recordAudit(trx, {
      action: 'password_reset.completed',
      target_account_id: live.account_id,
      ip: input.client.ip,
      user_agent: input.client.userAgent,
      at: now,
    });
    return { ...live, created };
  });
  if (!row) throw resetErrors.failed();

  const account = await findAccountById(ctx.db, row.account_id);
  // A security notice (kept and retried, not holding the answer up), as for a change in the
  // profile. Not "your password was changed" when there was none: the notice of a new way in.
  // First, as the change is committed: it needs only the database, and what follows (the store)
  // may fail, which must not silence it.
  if (account) {
    const change = row.created ? 'password_created' : 'password_changed';
    await notifySecurityChange(ctx, account.id, { change }, { ip: input.client.ip, userAgent: input.client.userAgent });
  }
  // Then, as the new password is committed and the link spent: the lock ends even if what
  // follows fails (a reset is the way out of the 30-day lock).
  if (account) await clearFailures(ctx, { email: account.email });
  // Before the sign-out: a sign-in finishing meanwhile is refused, or its portal session ended.
  await endSignInsInProgress(ctx, row.account_id);
  await signOutEverywhere(ctx, provider, row.account_id);
  return { type: row.type };
}

/** The migration notice's mail (PasswordResetRequired): a reset link in the migration wording. */
export async function sendMigrationResetLink(
  ctx: Context,
  account: { id: string; email: string },
  language: 'en' | 'sv',
  type: string | undefined,
): Promise<void> {
  // The mail budget is checked before the new link revokes the previous one.
  await takeMailPoint(ctx, account.email);
  const { link, email } = await createResetLink(ctx, account.id, { type });
  await sendMail(ctx, email, language, { kind: 'migration_reset_link', link, minutes: resetTokenTtlSeconds / 60 });
}

/** "a***@example.com": enough for the person to recognise the account, not to learn the address. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${email[0]}***${email.slice(at)}`;
}
