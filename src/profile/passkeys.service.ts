import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type Provider from 'oidc-provider';
import { findAccountById } from '../accounts/accounts.repository.ts';
import type { Context } from '../context.ts';
import { listPasskeys } from '../credentials/webauthn/passkeys.repository.ts';
import { registerPasskey, registrationOptions, type PasskeyOwner, type RegisteredPasskey } from '../credentials/webauthn/registration.ts';
import { errors } from '../http/app-error.ts';
import type { PortalSessionWithId } from '../session/portal-session.ts';
import { removeCredential } from './credential-removal.ts';
import { notifySecurityChange } from './security-notice.ts';
import type { SessionRequest } from './sessions.service.ts';
import { assertRecentSignIn, assertSecondFactorSession } from './signed-in.ts';
import type { ClientInfo } from './two-factor.service.ts';

/** The name a passkey gets when the person gives none. */
export const defaultPasskeyName = 'Passkey';

/** A passkey as the profile lists it: never its key or counter. */
export interface PasskeyListing {
  id: string;
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}

async function ownerOf(ctx: Context, session: PortalSessionWithId): Promise<PasskeyOwner> {
  const account = await findAccountById(ctx.db, session.account_id);
  if (!account) throw errors.unauthorized();
  return { id: session.id, account_id: account.id, email: account.email, name: account.name };
}

export async function listAccountPasskeys(ctx: Context, session: PortalSessionWithId): Promise<{ passkeys: PasskeyListing[] }> {
  const passkeys = await listPasskeys(ctx.db, session.account_id);
  return {
    passkeys: passkeys.map((p) => ({ id: p.id, name: p.name ?? defaultPasskeyName, created_at: p.created_at, last_used_at: p.last_used_at })),
  };
}

/**
 * POST /auth/passkeys/options. Adding a way to sign in that skips TOTP needs a sign-in within the
 * last 5 minutes, like adding or removing TOTP: a stolen session alone cannot plant its own key.
 */
export async function startPasskeyRegistration(ctx: Context, session: PortalSessionWithId): Promise<PublicKeyCredentialCreationOptionsJSON> {
  assertRecentSignIn(session, ctx.now());
  await assertSecondFactorSession(ctx, session);
  return registrationOptions(ctx, await ownerOf(ctx, session));
}

/**
 * POST /auth/passkeys/verify: checked again for a recent sign-in (the prompt may have waited).
 * The holder is mailed once the passkey is stored: a key planted with a stolen session signs in
 * without password or TOTP, so its owner must hear of it.
 */
export async function finishPasskeyRegistration(
  ctx: Context,
  session: PortalSessionWithId,
  input: { response: RegistrationResponseJSON; name: string | undefined },
  info: ClientInfo,
): Promise<RegisteredPasskey> {
  assertRecentSignIn(session, ctx.now());
  await assertSecondFactorSession(ctx, session);
  // Asked again under the account's lock: the account may have gained a second factor since.
  const registered = await registerPasskey(ctx, await ownerOf(ctx, session), { response: input.response, name: input.name || defaultPasskeyName }, info, (trx) =>
    assertSecondFactorSession({ db: trx }, session),
  );
  await notifySecurityChange(ctx, session.account_id, { change: 'passkey_registered' }, info);
  return registered;
}

/** DELETE /auth/passkeys/{id}: the profile's removal rules (recent sign-in, last way to sign in, operators), its notice and the other sessions' end. */
export async function removePasskey(ctx: Context, provider: Provider, request: SessionRequest, id: string): Promise<{ knownBrowser: string | undefined }> {
  return removeCredential(ctx, provider, request, id, 'webauthn');
}
