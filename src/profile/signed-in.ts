import type { Request } from 'express';
import type { Context } from '../context.ts';
import { errors } from '../http/app-error.ts';
import { getPortalSession, type PortalSession, type PortalSessionWithId } from '../session/portal-session.ts';
import { profileErrors } from './profile-errors.ts';
import { provesSecondFactor } from '../admin/operator-guard.ts';
import { hasSecondFactor } from '../admin/operators.repository.ts';

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
 * An account that has a second factor (TOTP or passkey) adds, replaces or removes one only from a
 * session that proved one (amr `mfa` or `hwk`). Otherwise a sign-in that proved one factor only
 * (the password on a browser remembered for the TOTP step; the password or an email code of an
 * account whose second factor is a passkey) could enrol an authenticator of its holder's own,
 * strip the owner's, and then sign in at the second-factor level, a passkey being two factors at
 * once: NIST SP 800-63B 6.1.2.1 asks for a sign-in at the level the new authenticator will be
 * used at. 403 `profile/mfa-required`, not `reauthentication_required`:
 * signing in again with the password alone would only be refused again, so the portal sends the
 * person to /login?second_factor=1 (the passkey, or the password and the authenticator code, asked
 * even on a browser remembered for the code: login-finish.ts asksSecondFactor). An
 * account without any enrols its first one with the recent sign-in alone; the console refuses its
 * operators with its own `operator/mfa-required` (operator-guard.ts).
 *
 * Password and upstream (Google, Microsoft) credentials are first factors: adding, changing or
 * removing one gives no way past the second factor (MfaRequired still follows), so they need the
 * recent sign-in only.
 */
export async function assertSecondFactorSession(ctx: Pick<Context, 'db'>, session: PortalSession & { account_id: string }): Promise<void> {
  if (provesSecondFactor(session.amr)) return;
  if (await hasSecondFactor(ctx.db, session.account_id)) throw profileErrors.secondFactorSessionRequired();
}
