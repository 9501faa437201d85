import type Provider from 'oidc-provider';
import { findAccountById } from '../accounts/accounts.repository.ts';
import { recordAudit } from '../audit/audit.ts';
import type { Context } from '../context.ts';
import { listCredentials, setPasswordHash } from '../credentials/credentials.repository.ts';
import { hashPassword, verifyPassword } from '../credentials/password/hashing.ts';
import { assertPasswordPolicy } from '../credentials/password/policy.ts';
import { errors } from '../http/app-error.ts';
import { rateLimitsFor } from '../http/rate-limit.ts';
import { assertNotLocked, budgetKey, guesserFor, reserveAttempt } from '../login/lockout.ts';
import { endSignInsInProgress } from '../login/login-session.ts';
import { sendMail, takeMailPoint } from '../login/login-mail.ts';
import { createResetLink, resetTokenTtlSeconds, revokeResetTokens } from '../login/reset.service.ts';
import { failureOf } from '../mail/mail-failure.ts';
import { chooseLanguage } from '../mail/templates.ts';
import { profileErrors } from './profile-errors.ts';
import { notifySecurityChange } from './security-notice.ts';
import { assertRecentSignIn } from './signed-in.ts';
import { signOutOtherSessions, type SessionRequest } from './sessions.service.ts';

export interface PasswordChange {
  current_password: string;
  new_password: string;
  sign_out_others: boolean;
}

/**
 * POST /api/accounts/password. The current password is the proof, so no recent sign-in is asked;
 * instead the call spends the sign-in budgets (per IP and per email) and a wrong current password
 * counts toward the account's lockout exactly like a wrong password at sign-in, so a stolen
 * session cannot be used to guess it. The new password follows the create-password policy. On
 * success the account's open reset links die, other sessions end on request, and the holder is
 * sent a security notice (security-notice.ts: kept and retried, in the account's language, not
 * held back by the mail budget), which the answer does not wait for.
 */
export async function changePassword(
  ctx: Context,
  provider: Provider,
  request: SessionRequest,
  input: PasswordChange,
): Promise<{ signed_out: number; knownBrowser: string | undefined }> {
  const { session, info } = request;
  const limits = rateLimitsFor(ctx);
  await limits.consume('ip', info.ip ?? 'unknown');
  // This browser, when it is a known one of the address, counts the wrong current passwords and
  // spends the budget of its own: a lock caused from elsewhere does not stop the owner here.
  const guesser = await guesserFor(ctx, session.email, request.knownBrowser);
  await limits.consume('email', budgetKey(guesser));
  await assertNotLocked(ctx, guesser);
  const normalized = assertPasswordPolicy(input.new_password);

  const account = await findAccountById(ctx.db, session.account_id);
  if (!account) throw errors.unauthorized();
  const stored = (await listCredentials(ctx.db, account.id)).find((c) => c.type === 'password' && c.secret);
  if (!stored?.secret) throw profileErrors.noPassword();
  // The place in the lockout count is taken before the password is checked, as at sign-in, so
  // parallel guesses each see the places taken before them.
  const place = await reserveAttempt(ctx, guesser);
  let outcome: Awaited<ReturnType<typeof verifyPassword>>;
  try {
    outcome = await verifyPassword(stored.secret, input.current_password);
  } catch (error) {
    await place.release();
    throw error;
  }
  if (!outcome.ok) {
    await place.failed({
      accountId: account.id,
      method: 'password',
      reason: 'profile_password_change',
      ip: info.ip,
      userAgent: info.userAgent,
    });
    throw profileErrors.currentPasswordInvalid();
  }
  await place.release();

  const hash = await hashPassword(normalized);
  const now = ctx.now();
  await ctx.db.transaction(async (trx) => {
    await setPasswordHash(trx, account.id, hash, now);
    await revokeResetTokens(trx, account.id);
    await recordAudit(trx, {
      action: 'password.changed',
      actor_id: account.id,
      target_account_id: account.id,
      ip: info.ip,
      user_agent: info.userAgent,
      details: { via: 'profile', sign_out_others: input.sign_out_others },
      at: now,
    });
  });
  // The notice first, as the change is committed: the store work below may fail, and must not silence it.
  await notifySecurityChange(ctx, account.id, { change: 'password_changed' }, info);
  // As after a reset: a sign-in that proved the old password (phished, say) does not finish its
  // second factor now.
  await endSignInsInProgress(ctx, account.id);
  const others = input.sign_out_others ? await signOutOtherSessions(ctx, provider, request) : undefined;
  return { signed_out: others?.sessions ?? 0, knownBrowser: others?.knownBrowser };
}

/**
 * POST /api/accounts/password/setup-link: the password switch turned on (a stakeholder, or anyone
 * without a password). The password is never typed in the profile: a set-password link goes to
 * the account's address (the reset machinery: single use, one hour), so turning it on proves the
 * mailbox as a reset does. It changes how the person signs in, so it needs a recent sign-in; the
 * answer is the same whether a link was sent or the account already has a password.
 */
export async function sendPasswordSetupLink(ctx: Context, request: SessionRequest & { acceptLanguage: string | undefined }): Promise<void> {
  const { session, info } = request;
  assertRecentSignIn(session, ctx.now());
  const account = await findAccountById(ctx.db, session.account_id);
  if (!account) throw errors.unauthorized();
  if ((await listCredentials(ctx.db, account.id)).some((c) => c.type === 'password')) return;
  await takeMailPoint(ctx, account.email);
  const { link, email } = await createResetLink(ctx, account.id);
  await recordAudit(ctx.db, {
    action: 'password.setup_link.sent',
    actor_id: account.id,
    target_account_id: account.id,
    ip: info.ip,
    user_agent: info.userAgent,
    at: ctx.now(),
  });
  const language = chooseLanguage({ acceptLanguage: request.acceptLanguage, accountLocale: account.locale });
  await sendMail(ctx, email, language, { kind: 'password_setup_link', link, minutes: resetTokenTtlSeconds / 60 }).catch(
    (error: unknown) => ctx.logger.error({ ...failureOf(error) }, 'password setup mail failed'),
  );
}
