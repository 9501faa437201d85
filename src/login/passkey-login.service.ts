import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import type { Context } from '../context.ts';
import { authenticationOptions } from '../credentials/webauthn/authentication.ts';
import { passkeyErrors } from '../credentials/webauthn/passkey-errors.ts';
import { rateLimitsFor } from '../http/rate-limit.ts';
import type { LoginOutcome, RequestInfo } from './login-finish.ts';
import { openSession, verifyFirstFactor, type SessionRef } from './login.service.ts';
import { budgetKey, guesserFor } from './lockout.ts';

/**
 * POST /auth/login/passkey/options (CredentialsRequired): a challenge for this login session's
 * account. Costs a point of the email's budget, like every sign-in call, but is not held by the
 * email's lock (lockHolds): a passkey cannot be guessed. Asking again replaces the pending challenge.
 */
export async function passkeySignInOptions(ctx: Context, ref: SessionRef, info: RequestInfo): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const session = await openSession(ctx, ref, undefined, 'webauthn');
  const guesser = await guesserFor(ctx, session.email, info.knownBrowser);
  await rateLimitsFor(ctx).consume('email', budgetKey(guesser));
  if (!session.account_id) throw passkeyErrors.none();
  return authenticationOptions(ctx, session.id, session.account_id);
}

/**
 * POST /auth/login/passkey/verify: the signed answer as a first factor, through the same budget,
 * failure audit and next-step decision as a password (verifyFirstFactor), but not the lockout.
 */
export async function verifyPasskeySignIn(
  ctx: Context,
  ref: SessionRef,
  response: AuthenticationResponseJSON,
  info: RequestInfo,
): Promise<LoginOutcome> {
  const session = await openSession(ctx, ref, undefined, 'webauthn');
  return verifyFirstFactor(ctx, session, 'webauthn', { response }, info);
}
