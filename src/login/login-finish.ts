import { recordSuccessfulLogin } from '../accounts/accounts.repository.ts';
import { recordAudit } from '../audit/audit.ts';
import type { Context } from '../context.ts';
import { touchCredential } from '../credentials/credentials.repository.ts';
import { createPortalSession, destroyPortalSession } from '../session/portal-session.ts';
import { buildAnswer, redirectAfterDone, stepFacts, type AccountFacts, type LoginAnswer } from './login-answer.ts';
import { loginErrors } from './login-errors.ts';
import { saveLoginSession, takeLoginSession, type LoginSession } from './login-session.ts';
import { decideNextStep } from './next-step.ts';

export interface RequestInfo {
  ip: string | null;
  userAgent: string | null;
  acceptLanguage: string | undefined;
  /** The portal session id from this browser's cookie, replaced at Done. */
  portalSessionId: string | undefined;
}

export interface LoginOutcome {
  answer: LoginAnswer;
  /** Set at Done: the new portal session, for the cookie. */
  portalSession?: { id: string; persistent: boolean };
}

/** Decides the next step after a change to the session and either stores it or finishes. */
export async function advance(ctx: Context, session: LoginSession, facts: AccountFacts, info: RequestInfo): Promise<LoginOutcome> {
  const state = decideNextStep(stepFacts(session, facts));
  if (state !== 'Done') {
    const next = { ...session, state };
    await saveLoginSession(ctx, next);
    return { answer: buildAnswer(next, facts) };
  }
  return finish(ctx, session, facts, info);
}

/**
 * Done: the login session is consumed (getDel: exactly one concurrent finisher wins), any
 * portal session this browser had is ended and a new one with a new id is created (no session
 * fixation), the sign-in is recorded and the lockout counter was already cleared.
 */
async function finish(ctx: Context, session: LoginSession, facts: AccountFacts, info: RequestInfo): Promise<LoginOutcome> {
  const { account } = facts;
  if (!account || !session.first_factor) throw loginErrors.invalidState();
  if (!(await takeLoginSession(ctx, session.id))) throw loginErrors.sessionMissing();
  if (info.portalSessionId) await destroyPortalSession(ctx, info.portalSessionId);

  const now = ctx.now();
  const portal = await createPortalSession(ctx, {
    account_id: account.id,
    email: account.email,
    amr: session.amr,
    auth_time: Math.floor(now.getTime() / 1000),
    ip: info.ip,
    user_agent: info.userAgent,
  });
  await recordSuccessfulLogin(ctx.db, account.id, now, { emailVerified: session.first_factor === 'email_code' });
  if (session.first_factor_credential_id) await touchCredential(ctx.db, session.first_factor_credential_id, now);
  await recordAudit(ctx.db, {
    action: 'login.succeeded',
    actor_id: account.id,
    target_account_id: account.id,
    ip: info.ip,
    user_agent: info.userAgent,
    details: { method: session.first_factor, amr: session.amr },
    at: now,
  });

  const done: LoginSession = { ...session, state: 'Done' };
  return {
    answer: buildAnswer(done, facts, redirectAfterDone(session, account)),
    portalSession: { id: portal.id, persistent: session.remember },
  };
}
