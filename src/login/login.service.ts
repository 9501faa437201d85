import { normalizeEmail } from '../accounts/accounts.repository.ts';
import { recordAudit } from '../audit/audit.ts';
import type { Context } from '../context.ts';
import { createFirstPassword } from '../credentials/credentials.repository.ts';
import { issueEmailCode, maxWrongCodes, wrongCodeCount, emailCodeTtlSeconds } from '../credentials/email-code/email-code.ts';
import { hashPassword } from '../credentials/password/hashing.ts';
import { assertPasswordPolicy } from '../credentials/password/policy.ts';
import { verifiers, type Proofs, type VerificationMethod } from '../credentials/registry.ts';
import type { VerifyResult } from '../credentials/verifier.ts';
import { rateLimitsFor } from '../http/rate-limit.ts';
import { chooseLanguage } from '../mail/templates.ts';
import { notifySecurityChange } from '../profile/security-notice.ts';
import { getPortalSessionById } from '../session/portal-session.ts';
import { buildAnswer, loadAccountFacts, stepFacts, type AccountFacts, type LoginAnswer } from './login-answer.ts';
import { loginErrors } from './login-errors.ts';
import { advance, type LoginOutcome, type RequestInfo } from './login-finish.ts';
import { sendMail, takeMailPoint } from './login-mail.ts';
import {
  assertState,
  assertStillProven,
  browserDigest,
  latestLoginSessionId,
  loadOwnLoginSession,
  newLoginSessionId,
  requireLoginSession,
  saveLoginSession,
  setLatestLoginSession,
  takeLoginSession,
  type LoginSession,
  type SignInRequest,
} from './login-session.ts';
import { assertNotLocked, auditFailure, budgetKey, guesserFor, lockedSeconds, lockHolds, reserveAttempt, type ReservedAttempt } from './lockout.ts';
import { decideNextStep } from './next-step.ts';
import { revokeResetTokens, sendMigrationResetLink } from './reset.service.ts';

export type { LoginOutcome, RequestInfo } from './login-finish.ts';

/** Which login session a call names: the body's session_id, and the browser id of the login cookie it must have been started by. */
export interface SessionRef {
  browserId: string | undefined;
  sessionId: string;
}

/**
 * Start: a new login session for the email, the first step decided, and the email that step
 * needs. An unknown address and an account without credentials both get OTPRequired and both
 * get one mail (a code, or a notice that there is no account), so neither the answer, its
 * timing nor whether a mail is sent reveals which addresses have accounts.
 */
export async function startLogin(
  ctx: Context,
  input: { email: string; query: Record<string, string>; browserId: string; info: RequestInfo },
): Promise<LoginAnswer> {
  const email = normalizeEmail(input.email);
  // The budget, the lock and the account read go out together: one round trip each to the store
  // and the database. Nothing is written before the first two have passed. A known browser of
  // the email has a budget of its own and is not held by the email's lock (lockout.ts).
  const guesser = await guesserFor(ctx, email, input.info.knownBrowser);
  const [, locked, facts] = await Promise.all([
    rateLimitsFor(ctx).consume('email', budgetKey(guesser)),
    lockedSeconds(ctx, guesser),
    loadAccountFacts(ctx, email),
  ]);
  if (locked > 0 && !hasUnguessableFirstFactor(facts)) throw loginErrors.accountLocked(locked);
  // A new start for the same request (a reload, another address) ends the browser's earlier
  // sign-in for it; another tab's sign-in for another application or page goes on.
  const previous = await latestLoginSessionId(ctx, input.browserId, input.query);
  if (previous) await takeLoginSession(ctx, previous);

  const now = ctx.now().getTime();
  const draft: LoginSession = {
    id: newLoginSessionId(),
    browser: browserDigest(input.browserId),
    email,
    account_id: facts.account?.id ?? null,
    state: 'Start',
    first_factor: null,
    first_factor_credential_id: null,
    second_factor: false,
    amr: [],
    create_credential_answered: false,
    remember: false,
    query: input.query,
    lang: chooseLanguage({ lang: input.query.lang, acceptLanguage: input.info.acceptLanguage, accountLocale: facts.account?.locale }),
    created_at: now,
    expires_at: now + ctx.config.loginSessionTtl * 1000,
  };
  const session: LoginSession = { ...draft, state: decideNextStep(stepFacts(draft, facts)) };
  await saveLoginSession(ctx, session);
  await setLatestLoginSession(ctx, input.browserId, session);

  if (session.state === 'OTPRequired') await sendCode(ctx, session, facts, budgetKey(guesser));
  if (session.state === 'PasswordResetRequired' && facts.account) {
    await sendMigrationResetLink(ctx, facts.account, session.lang, input.query.type);
  }
  return buildAnswer(session, facts);
}

/**
 * While the email is locked, Start goes on only for an account with a passkey or a linked
 * upstream identity, which the lock does not hold (lockHolds): to the credentials step, where a
 * password is refused with `account_locked` and those still work. Every other lock, unknown
 * addresses' included, is answered at Start as before. This tells nothing new: the credentials
 * step names the account's kinds of credential to whoever types the address, locked or not.
 */
function hasUnguessableFirstFactor({ account, credentials }: AccountFacts): boolean {
  return account !== null && !account.password_reset_required && credentials.some((c) => !lockHolds(c.type));
}

/**
 * Issues a code and mails it; for an unknown email an unmatchable code is stored and the mail
 * is the "no account for this address" notice, so both cases do the same work. The mail point is
 * the budget's: the address's, or a known browser's own.
 */
async function sendCode(ctx: Context, session: LoginSession, facts: AccountFacts, budget: string): Promise<void> {
  await takeMailPoint(ctx, budget);
  await issueEmailCode(ctx, session.id, facts.account !== null, (code) => {
    const template = code ? ({ kind: 'email_code', code, minutes: emailCodeTtlSeconds / 60 } as const) : ({ kind: 'unknown_account' } as const);
    return sendMail(ctx, session.email, session.lang, template);
  });
}

/** Loads the named session, checks the email it was started for and that the call is allowed now. */
export async function openSession(ctx: Context, ref: SessionRef, email: string | undefined, method: VerificationMethod): Promise<LoginSession> {
  const session = await requireLoginSession(ctx, ref.browserId, ref.sessionId);
  if (email !== undefined && normalizeEmail(email) !== session.email) throw loginErrors.invalidState();
  assertState(session, ...verifiers[method].acceptedIn);
  return session;
}

/**
 * A first factor, whatever its verifier: the same per-email budget, lockout, failure counting
 * and audit for every method, then the next step. Failures count for unknown emails too. The
 * failure count is cleared only at Done (login-finish.ts), not here: else knowing the password
 * would reset the count of wrong TOTP codes with every new sign-in.
 */
export async function verifyFirstFactor<M extends VerificationMethod>(
  ctx: Context,
  session: LoginSession,
  method: M,
  proof: Proofs[M],
  info: RequestInfo,
  changes: Partial<LoginSession> = {},
): Promise<LoginOutcome> {
  // Taken before the credentials are read: a password reset after this moment ends the sign-in.
  const provingFrom = ctx.now().getTime();
  // Together, as in startLogin: the proof is looked at only after the budget and the lock passed.
  // A passkey or an upstream sign-in is neither refused by the lock nor counted towards it.
  const guesser = await guesserFor(ctx, session.email, info.knownBrowser);
  const held = lockHolds(method);
  const [, , facts] = await Promise.all([
    rateLimitsFor(ctx).consume('email', budgetKey(guesser)),
    held ? assertNotLocked(ctx, guesser) : undefined,
    loadAccountFacts(ctx, session.email),
  ]);
  const attempt = held ? await reserveAttempt(ctx, guesser) : unheldAttempt(ctx, session.email);
  let result: VerifyResult;
  try {
    result = await verifiers[method].verify({ ctx, session, ...facts }, proof);
  } catch (error) {
    await attempt.release();
    throw error;
  }
  if (!result.ok) {
    if (!result.countsAsFailure) await attempt.release();
    else await attempt.failed({ accountId: facts.account?.id ?? null, method, reason: result.error.type, ip: info.ip, userAgent: info.userAgent });
    throw result.error;
  }
  await attempt.release();
  const verified: LoginSession = {
    ...session,
    ...changes,
    first_factor: result.factor === 'totp' ? session.first_factor : result.factor,
    first_factor_credential_id: result.credentialId,
    first_factor_at: session.first_factor_at ?? provingFrom,
    amr: [...new Set([...session.amr, ...result.amr])],
  };
  return advance(ctx, verified, facts, info);
}

/** An attempt of a method the lock does not hold: it takes no place, and a failure is only audited. */
function unheldAttempt(ctx: Context, email: string): ReservedAttempt {
  return { failed: (meta) => auditFailure(ctx, email, meta), release: async () => {} };
}

export async function verifyPassword(
  ctx: Context,
  ref: SessionRef,
  input: { email: string; password: string; remember: boolean },
  info: RequestInfo,
): Promise<LoginOutcome> {
  const session = await openSession(ctx, ref, input.email, 'password');
  return verifyFirstFactor(ctx, session, 'password', { password: input.password }, info, { remember: input.remember });
}

export async function verifyEmailCode(
  ctx: Context,
  ref: SessionRef,
  input: { email: string; otp: string },
  info: RequestInfo,
): Promise<LoginOutcome> {
  const session = await openSession(ctx, ref, input.email, 'email_code');
  return verifyFirstFactor(ctx, session, 'email_code', { code: input.otp }, info);
}

/**
 * A new code replaces the old one; the wrong-try count of the session is kept, so resending
 * does not buy more guesses. The per-address mail budget limits how often this works.
 */
export async function resendEmailCode(ctx: Context, ref: SessionRef, info: RequestInfo): Promise<LoginOutcome> {
  const session = await openSession(ctx, ref, undefined, 'email_code');
  const guesser = await guesserFor(ctx, session.email, info.knownBrowser);
  await rateLimitsFor(ctx).consume('email', budgetKey(guesser));
  await assertNotLocked(ctx, guesser);
  if ((await wrongCodeCount(ctx, session.id)) >= maxWrongCodes) throw loginErrors.otpRetriesExceeded();
  const facts = await loadAccountFacts(ctx, session.email);
  await sendCode(ctx, session, facts, budgetKey(guesser));
  return { answer: buildAnswer(session, facts) };
}

/**
 * AskedCreateCredential: the person signed in by code sets a password (the spec's rules). Only the
 * account's first: a sign-in overtaken by a reset ends (assertStillProven), and a password that
 * appeared meanwhile is never replaced from here (invalid_login_session_state).
 */
export async function createPassword(ctx: Context, ref: SessionRef, password: string, info: RequestInfo): Promise<LoginOutcome> {
  const session = await requireLoginSession(ctx, ref.browserId, ref.sessionId);
  assertState(session, 'AskedCreateCredential');
  const normalized = assertPasswordPolicy(password);
  const { account } = await loadAccountFacts(ctx, session.email);
  if (!account) throw loginErrors.invalidState();
  await assertStillProven(ctx, account.id, session);
  const hash = await hashPassword(normalized);
  const now = ctx.now();
  await ctx.db.transaction(async (trx) => {
    const credentialId = await createFirstPassword(trx, account.id, hash, now);
    if (credentialId === null) throw loginErrors.invalidState();
    await revokeResetTokens(trx, account.id);
    await recordAudit(trx, {
      action: 'password.created',
      actor_id: account.id,
      target_account_id: account.id,
      ip: info.ip,
      user_agent: info.userAgent,
      details: { credential_id: credentialId, via: 'login' },
      at: now,
    });
  });
  await notifySecurityChange(ctx, account.id, { change: 'password_created' }, info);
  const facts = await loadAccountFacts(ctx, session.email);
  return advance(ctx, { ...session, create_credential_answered: true }, facts, info);
}

export async function skipCreatePassword(ctx: Context, ref: SessionRef, info: RequestInfo): Promise<LoginOutcome> {
  const session = await requireLoginSession(ctx, ref.browserId, ref.sessionId);
  assertState(session, 'AskedCreateCredential');
  const facts = await loadAccountFacts(ctx, session.email);
  return advance(ctx, { ...session, create_credential_answered: true }, facts, info);
}

/**
 * The portal's probe on load: the login session this browser may continue, and who is signed in.
 * The one named by `sessionId`, else the browser's latest for the page's request (its
 * `interaction`, else its `return_to`): a reload resumes its own tab's sign-in, never another
 * tab's, which may be for another application. Never an error for a missing or foreign session:
 * it answers null.
 */
export async function pingLogin(
  ctx: Context,
  input: { browserId: string | undefined; sessionId: string | undefined; request: SignInRequest; portalSessionId: string | undefined },
): Promise<{ session: LoginAnswer | null; email: string | null }> {
  const portal = input.portalSessionId ? await getPortalSessionById(ctx, input.portalSessionId) : null;
  const claimed = input.sessionId ?? (input.browserId ? await latestLoginSessionId(ctx, input.browserId, input.request) : null);
  const login = claimed ? await loadOwnLoginSession(ctx, input.browserId, claimed) : null;
  const session = login ? buildAnswer(login, await loadAccountFacts(ctx, login.email)) : null;
  return { session, email: portal?.email ?? login?.email ?? null };
}
