import type { RequestHandler, Response } from 'express';
import type { Context } from '../context.ts';
import { AppError, errors } from '../http/app-error.ts';
import { getPortalSession } from '../session/portal-session.ts';
import { findOperatorRole, roleAllows, type OperatorRole } from './operators.repository.ts';

/** The signed-in operator of a console request, with what the audit log records about the call. */
export interface Operator {
  account_id: string;
  email: string;
  role: OperatorRole;
  ip: string | null;
  user_agent: string | null;
  /** The portal session the call came with. Never recorded or shown: it is what the session cookie holds. */
  session_id: string;
}

/** amr values that prove a second factor in this session (TOTP sign-in carries 'mfa', a security key 'hwk'). */
const secondFactors = new Set(['mfa', 'hwk']);

/** Whether a sign-in with these amr values proved a second factor. */
export function provesSecondFactor(amr: readonly string[]): boolean {
  return amr.some((method) => secondFactors.has(method));
}

export const operatorErrors = {
  mfaRequired: () => new AppError('operator/mfa-required', 403, 'Sign in with your second factor to use the console'),
  reauthenticationRequired: () =>
    new AppError('operator/reauthentication-required', 403, 'Sign in again with your second factor to do this: it needs a recent sign-in'),
};

/**
 * How recent the sign-in must be for the console's actions that could hand someone else's account
 * to whoever holds the session (see requireOperator's `recentSignIn`). Longer than the profile's
 * five minutes (src/profile/signed-in.ts): an operator on the phone with a customer may need a
 * few of them in a row, and each sign-in takes the second factor again.
 */
export const operatorRecentSignInSeconds = 15 * 60;

export interface OperatorGuardOptions {
  /**
   * The route needs a sign-in, with a second factor, in the last operatorRecentSignInSeconds:
   * 403 `operator/reauthentication-required` otherwise. For what amounts to signing in as
   * someone else: reading live reset links, removing a person's second factor, impersonation. A
   * console session lives 12 hours; one left open on a shared machine, or a stolen cookie, must
   * not be enough for those.
   */
  recentSignIn?: boolean;
}

/**
 * The console's gate, on every operator route. Operators use the normal portal session; the role
 * lives in operator_roles, so revoking it takes effect on the next call. A password alone never
 * opens the console: the session must have verified a second factor, because one phished password
 * of an operator would otherwise expose every account. Checked in this order so a non-operator
 * learns nothing about the MFA rule: no session → 401; no role → 403 `forbidden`; no second factor
 * → 403 `operator/mfa-required`; role too low for the route → 403 `forbidden`; a sign-in too old
 * for a route that asks for a recent one → 403 `operator/reauthentication-required`.
 */
export function requireOperator(ctx: Context, required: OperatorRole = 'support', options: OperatorGuardOptions = {}): RequestHandler {
  return async (req, res, next) => {
    const session = await getPortalSession(ctx, req);
    if (!session) throw errors.unauthorized();
    const role = await findOperatorRole(ctx.db, session.account_id);
    if (!role) throw errors.forbidden();
    if (!provesSecondFactor(session.amr)) throw operatorErrors.mfaRequired();
    if (!roleAllows(role, required)) throw errors.forbidden();
    const age = Math.floor(ctx.now().getTime() / 1000) - session.auth_time;
    if (options.recentSignIn && age > operatorRecentSignInSeconds) throw operatorErrors.reauthenticationRequired();
    const operator: Operator = {
      account_id: session.account_id,
      email: session.email,
      role,
      ip: req.ip ?? null,
      user_agent: req.get('user-agent') ?? null,
      session_id: session.id,
    };
    res.locals.operator = operator;
    next();
  };
}

/** The operator set by requireOperator; only call it in handlers behind that guard. */
export function operatorOf(res: Response): Operator {
  const operator = res.locals.operator as Operator | undefined;
  if (!operator) throw errors.unauthorized();
  return operator;
}
