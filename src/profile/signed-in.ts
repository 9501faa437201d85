import type { Request } from 'express';
import type { Context } from '../context.ts';
import { errors } from '../http/app-error.ts';
import { getPortalSession, type PortalSession, type PortalSessionWithId } from '../session/portal-session.ts';
import { profileErrors } from './profile-errors.ts';
import { provesSecondFactor } from '../admin/operator-guard.ts';
import { hasSecondFactor } from '../admin/operators.repository.ts';
import { isOperator } from './profile.repository.ts';

/** How recent a sign-in must be to change how the person signs in (second factors, passkeys). */
export const recentSignInSeconds = 5 * 60;

/** The portal session of the request, or `unauthorized` (401). */
export async function requireSignedIn(ctx: Pick<Context, 'store' | 'config' | 'now'>, req: Request): Promise<PortalSessionWithId> {
  const session = await getPortalSession(ctx, req);
  if (!session) throw errors.unauthorized();
  return session;
}

/**
 * Adding or removing a second factor needs a sign-in within the last 5 minutes (auth_time, on
 * ctx.now()'s clock): a stolen or forgotten-open session alone cannot strip or swap the MFA of
 * an account. `reauthentication_required` (403) tells the portal to send the person to /login.
 */
export function assertRecentSignIn(session: PortalSession, now: Date): void {
  if (Math.floor(now.getTime() / 1000) - session.auth_time > recentSignInSeconds) throw profileErrors.reauthenticationRequired();
}

/**
 * An operator account's second factors (TOTP, passkeys) change only from a session that proved
 * one. Otherwise a password alone, phished or set through a reset link, would let its holder
 * enrol an authenticator of their own and open the console, where the second factor is the
 * point. 403 `operator/mfa-required` (the console's type for the same rule): the person signs in
 * again, with the passkey or the password and authenticator code (/login?second_factor=1).
 * An operator without any (granted before the rule, or set up by hand) enrols a first one.
 */
export async function assertSecondFactorSession(ctx: Pick<Context, 'db'>, session: PortalSession & { account_id: string }): Promise<void> {
  if (provesSecondFactor(session.amr)) return;
  if ((await isOperator(ctx.db, session.account_id)) && (await hasSecondFactor(ctx.db, session.account_id))) {
    throw profileErrors.secondFactorSessionRequired();
  }
}
