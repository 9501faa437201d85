import { recordAudit } from '../audit/audit.ts';
import type { Context } from '../context.ts';
import { verifiers } from '../credentials/registry.ts';
import { deleteOtherTotpCredentials, lockAccountRow, totpCredentialExists } from '../credentials/totp/totp.repository.ts';
import { rateLimitsFor } from '../http/rate-limit.ts';
import { notifySecurityChange } from '../profile/security-notice.ts';
import { loadAccountFacts, type AccountFacts } from './login-answer.ts';
import { loginErrors } from './login-errors.ts';
import { advance, type LoginOutcome, type RequestInfo } from './login-finish.ts';
import { assertState, assertStillProven, requireLoginSession, takeLoginSession, type LoginSession } from './login-session.ts';
import { assertNotLocked, budgetKey, guesserFor, reserveAttempt } from './lockout.ts';
import type { SessionRef } from './login.service.ts';
import { publicDeviceId, rememberDevice } from './remembered-device.ts';

/** Codes a login session may try in MfaRequired or TOTPResetRequired before it is ended. */
export const maxMfaAttempts = 5;

const attemptsKey = (sessionId: string) => `login:${sessionId}:mfa-attempts`;

interface SecondFactorProof {
  /** The session with the second factor recorded (amr + otp, mfa). */
  session: LoginSession;
  facts: AccountFacts;
  credentialId: string;
}

/**
 * The checks every TOTP step shares. The attempt is counted before the code is looked at
 * (an atomic increment), so even simultaneous guesses get 5 tries per login session in total;
 * the fifth wrong code ends the login session (`mfa/retries-exceeded`, 429) and the person starts
 * again with the first factor. Each wrong code (a replay too) also counts toward the per-account
 * lockout, like a wrong password, and is audited: against the email, or the lane the guesser has
 * (a known browser's; after a passkey or an upstream sign-in, the email's proven lane).
 */
async function proveSecondFactor(
  ctx: Context,
  ref: SessionRef,
  step: 'MfaRequired' | 'TOTPResetRequired',
  code: string,
  info: RequestInfo,
): Promise<SecondFactorProof> {
  const session = await requireLoginSession(ctx, ref.browserId, ref.sessionId);
  assertState(session, step);
  const ttl = Math.max(1, Math.ceil((session.expires_at - ctx.now().getTime()) / 1000));
  // Issued together (one pipelined round trip to the store, the account read alongside). The
  // attempt counts even when the email's budget or the lock then refuses the call: stricter,
  // never looser.
  // After a passkey or an upstream sign-in, the proven lane: the strangers' guesses that locked
  // the email do not stop the one who passed either (lockout.ts).
  const guesser = await guesserFor(ctx, session.email, info.knownBrowser, session.first_factor);
  const [, , attempt, facts] = await Promise.all([
    rateLimitsFor(ctx).consume('email', budgetKey(guesser)),
    assertNotLocked(ctx, guesser),
    ctx.store.incr(attemptsKey(session.id), ttl),
    loadAccountFacts(ctx, session.email),
  ]);
  if (attempt > maxMfaAttempts) {
    await takeLoginSession(ctx, session.id);
    throw loginErrors.mfaRetriesExceeded();
  }

  // A place in the lockout count is taken before the code is looked at, as for a first factor:
  // parallel codes across many login sessions each see the places taken before them.
  const place = await reserveAttempt(ctx, guesser);
  let result: Awaited<ReturnType<typeof verifiers.totp.verify>>;
  try {
    result = await verifiers.totp.verify({ ctx, session, ...facts }, { code });
  } catch (error) {
    await place.release();
    throw error;
  }
  if (!result.ok) {
    const last = attempt >= maxMfaAttempts;
    if (last) await takeLoginSession(ctx, session.id);
    if (!result.countsAsFailure) await place.release();
    else {
      await place.failed({
        accountId: facts.account?.id ?? null,
        method: 'totp',
        reason: last ? 'mfa/retries-exceeded' : result.error.type,
        ip: info.ip,
        userAgent: info.userAgent,
      });
    }
    throw last ? loginErrors.mfaRetriesExceeded() : result.error;
  }
  await place.release();
  if (!facts.account || !result.credentialId) throw loginErrors.invalidState();
  return {
    session: {
      ...session,
      second_factor: true,
      second_factor_credential_id: result.credentialId,
      // RFC 8176: 'otp' for the authenticator code, 'mfa' because two factors are now proven.
      amr: [...new Set([...session.amr, ...result.amr, 'mfa'])],
    },
    facts,
    credentialId: result.credentialId,
  };
}

/**
 * verify-mfa (MfaRequired): the authenticator code, then the next step (normally Done). With
 * `remember`, this browser is remembered for the account (MfaRequired is the one state that
 * allows it: `allow_totp_remember`, false for operator accounts, whose `remember` is ignored).
 * A remembered browser skips the code from then on, so it is audited (`device.remembered`) by its
 * public id, as the profile lists and revokes it: the cookie value would sign the code step in.
 */
export async function verifyTotp(
  ctx: Context,
  ref: SessionRef,
  input: { code: string; remember: boolean },
  info: RequestInfo,
): Promise<LoginOutcome> {
  const { session, facts } = await proveSecondFactor(ctx, ref, 'MfaRequired', input.code, info);
  const outcome = await advance(ctx, session, facts, info);
  if (!input.remember || session.remember_device_allowed === false) return outcome;
  const accountId = facts.account!.id;
  const deviceId = await rememberDevice(ctx, accountId, info.userAgent, info.deviceId);
  await recordAudit(ctx.db, {
    action: 'device.remembered',
    actor_id: accountId,
    target_account_id: accountId,
    ip: info.ip,
    user_agent: info.userAgent,
    details: { device_id: publicDeviceId(deviceId) },
    at: ctx.now(),
  });
  return { ...outcome, rememberedDeviceId: deviceId };
}

/**
 * merge-mfa (TOTPResetRequired): the account has several TOTP credentials; the one the code
 * matches is kept and the others are deleted in one transaction, the holder is mailed a security
 * notice, then the sign-in continues with the second factor proven.
 */
export async function mergeTotp(ctx: Context, ref: SessionRef, code: string, info: RequestInfo): Promise<LoginOutcome> {
  const { session, facts, credentialId } = await proveSecondFactor(ctx, ref, 'TOTPResetRequired', code, info);
  const account = facts.account!;
  // A sign-in overtaken by a reset or a sign-out everywhere removes nothing.
  await assertStillProven(ctx, account.id, session);
  const now = ctx.now();
  const removed = await ctx.db.transaction(async (trx) => {
    await lockAccountRow(trx, account.id);
    // Two sign-ins merging at once with codes of different credentials: the first keeps its
    // credential and removes the other; the second then finds its credential gone and is refused
    // (else both would delete each other's and leave the account without a second factor).
    if (!(await totpCredentialExists(trx, account.id, credentialId))) throw loginErrors.mfaInvalid();
    const removed = await deleteOtherTotpCredentials(trx, account.id, credentialId);
    await recordAudit(trx, {
      action: 'totp.merged',
      actor_id: account.id,
      target_account_id: account.id,
      ip: info.ip,
      user_agent: info.userAgent,
      details: { kept_credential_id: credentialId, removed_credential_ids: removed },
      at: now,
    });
    return removed;
  });
  // Authenticators were removed: their holder hears of it, as of any removal (ASVS V2.2.3).
  if (removed.length > 0) await notifySecurityChange(ctx, account.id, { change: 'totp_merged' }, info);
  return advance(ctx, session, await loadAccountFacts(ctx, session.email), info);
}
