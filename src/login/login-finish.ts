import { findOperatorRole } from '../admin/operators.repository.ts';
import type { Context } from '../context.ts';
import { countCredentials } from '../credentials/credentials.repository.ts';
import { createPortalSession, destroyPortalSession } from '../session/portal-session.ts';
import { buildAnswer, redirectAfterDone, stepFacts, type AccountFacts, type LoginAnswer } from './login-answer.ts';
import { loginErrors } from './login-errors.ts';
import { issueKnownBrowser } from './known-browser.ts';
import { clearFailures, guesserFor, laneDetails, signInEndsLock, type Guesser } from './lockout.ts';
import { provenBeforeCredentialsChanged, saveLoginSession, takeLoginSession, type LoginSession } from './login-session.ts';
import { decideNextStep, isMultiFactor } from './next-step.ts';
import { recordSignIn as recordSignInRow } from './sign-in.repository.ts';
import { findRememberedDevice, touchRememberedDevice } from './remembered-device.ts';

export interface RequestInfo {
  ip: string | null;
  userAgent: string | null;
  acceptLanguage: string | undefined;
  /** The portal session id from this browser's cookie, replaced at Done. */
  portalSessionId: string | undefined;
  /** The remembered-device id from this browser's signed `nyckel_device` cookie. */
  deviceId: string | undefined;
  /** This browser's `nyckel_known` cookie (known-browser.ts), unverified. */
  knownBrowser: string | undefined;
}

export interface LoginOutcome {
  answer: LoginAnswer;
  /** Set at Done: the new portal session, for the cookie. */
  portalSession?: { id: string; persistent: boolean };
  /** Set when the person asked to remember this device: the new `nyckel_device` cookie value. */
  rememberedDeviceId?: string;
  /** Set at Done: the new `nyckel_known` cookie value, this browser now known to the email. */
  knownBrowser?: string;
}

/**
 * Decides the next step after a change to the session and either stores it or finishes. The
 * browser's remembered device is looked up only when it can matter (one TOTP credential, no
 * second factor yet, and the page did not ask for one: asksSecondFactor); when it lets the person
 * skip MfaRequired its last use is recorded.
 *
 * Operator accounts are never remembered: the console opens only to a sign-in that proved the
 * second factor, so a remembered browser would sign an operator in to a console that refuses
 * them, and a sign-in again would be remembered again. A device remembered before the role was
 * granted is ignored; MfaRequired says whether the browser may be remembered.
 */
export async function advance(ctx: Context, session: LoginSession, facts: AccountFacts, info: RequestInfo): Promise<LoginOutcome> {
  const mayRemember =
    facts.account !== null &&
    session.first_factor !== null &&
    !isMultiFactor(session.first_factor) &&
    !session.second_factor &&
    !asksSecondFactor(session) &&
    countCredentials(facts.credentials).totp === 1;
  let operator: boolean | undefined;
  const isOperator = async () => (operator ??= await isOperatorAccount(ctx, facts));
  const found = mayRemember ? await findRememberedDevice(ctx, info.deviceId, facts.account!.id) : null;
  const device = found && !(await isOperator()) ? found : null;
  const state = decideNextStep(stepFacts(session, facts, device !== null));
  const skippedMfa = device !== null && state !== 'MfaRequired';
  if (skippedMfa) await touchRememberedDevice(ctx, device.publicId, device.device);
  if (state !== 'Done') {
    const next: LoginSession = { ...session, state };
    if (state === 'MfaRequired' && session.state !== 'MfaRequired') next.remember_device_allowed = !(await isOperator());
    await saveLoginSession(ctx, next);
    return { answer: buildAnswer(next, facts) };
  }
  return finish(ctx, session, facts, info, skippedMfa);
}

/**
 * `second_factor=1` on /login (kept with the start query): the page that sent the person here (a
 * change of the profile's second factors, the console) needs a sign-in that proves a second
 * factor, so a remembered browser does not skip the authenticator code this time. It can only
 * make a sign-in ask for more; "Remember this device" is offered at the code as usual.
 */
function asksSecondFactor(session: LoginSession): boolean {
  return session.query.second_factor === '1';
}

async function isOperatorAccount(ctx: Context, facts: AccountFacts): Promise<boolean> {
  return facts.account !== null && (await findOperatorRole(ctx.db, facts.account.id)) !== null;
}

/**
 * Done: the login session is consumed (getDel: exactly one concurrent finisher wins), any
 * portal session this browser had is ended and a new one with a new id is created (no session
 * fixation), the sign-in is recorded and the lockout's failure count cleared (only here: a first
 * factor alone must not reset the count of wrong second-factor codes). A sign-in
 * whose TOTP step a remembered device skipped carries only the first factor's amr (no `mfa`):
 * the acr says what was proven in this sign-in.
 */
async function finish(
  ctx: Context,
  session: LoginSession,
  facts: AccountFacts,
  info: RequestInfo,
  rememberedDevice: boolean,
): Promise<LoginOutcome> {
  const { account } = facts;
  if (!account || !session.first_factor) throw loginErrors.invalidState();
  // A password reset since the first factor was proven ended this sign-in (reset.service.ts): it
  // is consumed all the same. The store calls go out together; the third says whether a lane is
  // signing in (a known browser, or the proven lane after a passkey or an upstream sign-in: its
  // sign-in leaves the email's lock and counts to the others).
  const [stale, taken, guesser] = await Promise.all([
    provenBeforeCredentialsChanged(ctx, account.id, session),
    takeLoginSession(ctx, session.id),
    guesserFor(ctx, session.email, info.knownBrowser, session.first_factor),
  ]);
  if (!taken || stale) throw loginErrors.sessionMissing();
  const now = ctx.now();
  // Independent writes, issued together: the store's share and the database's share of a sign-in
  // overlap instead of queueing one after another.
  const [created, recorded, ...rest] = await Promise.allSettled([
    createPortalSession(ctx, {
      account_id: account.id,
      email: account.email,
      amr: session.amr,
      auth_time: Math.floor(now.getTime() / 1000),
      ip: info.ip,
      user_agent: info.userAgent,
      persistent: session.remember,
    }),
    recordSignIn(ctx, session, account.id, info, { rememberedDevice, guesser }, now),
    info.portalSessionId ? destroyPortalSession(ctx, info.portalSessionId) : undefined,
    // A passkey or upstream sign-in proved nothing about the guesses counted against the email
    // (lockHolds): an attacker's run must not restart whenever the owner signs in with either.
    clearFailures(ctx, guesser, session.first_factor),
  ]);
  if (created.status === 'rejected' || recorded.status === 'rejected') {
    // A sign-in that could not be recorded (the database or store dropped) did not happen: the new
    // portal session goes and the login session is put back, so the person's retry of this same
    // step succeeds once the service returns instead of starting over. The first error answers.
    await Promise.allSettled([
      created.status === 'fulfilled' ? destroyPortalSession(ctx, created.value.id) : undefined,
      saveLoginSession(ctx, session),
    ]);
    throw created.status === 'rejected' ? created.reason : (recorded as PromiseRejectedResult).reason;
  }
  // The sign-in itself stands; a previous session left behind or a failure count not cleared is
  // logged, not turned into a failed sign-in.
  for (const result of rest) {
    if (result.status === 'rejected') ctx.logger.warn({ err: result.reason }, 'sign-in housekeeping failed');
  }
  const portal = created.value;
  // A reset (or password change, or sign-out everywhere) writes its mark, then ends the account's
  // portal sessions. One that wrote its mark after the check above may have listed the sessions
  // before this one existed: looked at again now that it does, either the reset ends it or this
  // check sees the mark.
  const overtaken = await provenBeforeCredentialsChanged(ctx, account.id, session).catch((error: unknown) => error);
  if (overtaken !== false) {
    await destroyPortalSession(ctx, portal.id).catch((error: unknown) => ctx.logger.warn({ err: error }, 'overtaken sign-in\'s session not ended'));
    if (overtaken === true) throw loginErrors.sessionMissing();
    // Not known (the store failed): as for any sign-in that could not be completed, the login
    // session is put back, so the person's retry of this step succeeds once the store is back.
    await saveLoginSession(ctx, session).catch(() => undefined);
    throw overtaken;
  }

  const done: LoginSession = { ...session, state: 'Done' };
  return {
    answer: buildAnswer(done, facts, redirectAfterDone(session, account)),
    portalSession: { id: portal.id, persistent: session.remember },
    knownBrowser: issueKnownBrowser(ctx, session.email),
  };
}

/**
 * The database's record of a sign-in: last login, credentials' last use, the audit event; and the
 * end of the account's lock (the console's mirror of it) when the sign-in ended the lock
 * (signInEndsLock: not through a lane, not by a passkey or upstream sign-in, for which the lock
 * still holds for others).
 */
async function recordSignIn(
  ctx: Context,
  session: LoginSession,
  accountId: string,
  info: RequestInfo,
  how: { rememberedDevice: boolean; guesser: Guesser },
  now: Date,
) {
  const { rememberedDevice, guesser } = how;
  await recordSignInRow(ctx.db, {
    accountId,
    at: now,
    clearsLock: signInEndsLock(guesser, session.first_factor!),
    emailVerified: session.first_factor === 'email_code',
    credentialIds: [session.first_factor_credential_id, session.second_factor_credential_id].filter((id): id is string => Boolean(id)),
    ip: info.ip,
    userAgent: info.userAgent,
    details: {
      method: session.first_factor,
      amr: session.amr,
      ...(rememberedDevice ? { remembered_device: true } : {}),
      // A sign-in that the email's lock did not hold: a browser known to it, or the proven lane.
      ...laneDetails(guesser.lane),
    },
  });
}
