import {
  generateRegistrationOptions,
  verifyRegistrationResponse,
  type PublicKeyCredentialCreationOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Queryable } from '../../accounts/accounts.repository.ts';
import { recordAudit } from '../../audit/audit.ts';
import type { Context } from '../../context.ts';
import { lockAccountRow } from '../totp/totp.repository.ts';
import { saveChallenge, takeChallenge } from './challenges.ts';
import { passkeyErrors } from './passkey-errors.ts';
import { insertPasskey, listPasskeys } from './passkeys.repository.ts';
import { ceremonyTimeoutMs, relyingParty, supportedAlgorithms } from './relying-party.ts';

type RegistrationContext = Pick<Context, 'db' | 'store' | 'now' | 'config' | 'logger'>;

/** Who registers: the portal session (its id keys the challenge) and its account. */
export interface PasskeyOwner {
  /** The portal session id. */
  id: string;
  account_id: string;
  email: string;
  name: string;
}

/**
 * Passkeys one account may have. Every sign-in and registration lists them (allowCredentials,
 * excludeCredentials) and the profile shows each, so the list is bounded; twenty covers every
 * phone, laptop and security key a person keeps.
 */
export const maxPasskeysPerAccount = 20;

/** The WebAuthn user handle: the account id's 16 bytes, never the email (authenticators may show or sync it). */
function userHandle(accountId: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(Buffer.from(accountId.replace(/-/g, ''), 'hex'));
}

/**
 * The options of navigator.credentials.create(): the account's existing passkeys are excluded
 * (one authenticator registers once), a discoverable credential is preferred, user verification
 * is required (a passkey sign-in skips TOTP, so the key must prove the person too), attestation
 * is not asked for (Nyckel does not restrict authenticator models).
 */
export async function registrationOptions(ctx: RegistrationContext, owner: PasskeyOwner): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const rp = relyingParty(ctx.config);
  const existing = await listPasskeys(ctx.db, owner.account_id);
  if (existing.length >= maxPasskeysPerAccount) throw passkeyErrors.limitReached();
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: owner.email,
    userDisplayName: owner.name || owner.email,
    userID: userHandle(owner.account_id),
    timeout: ceremonyTimeoutMs,
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: p.transports })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
    supportedAlgorithmIDs: supportedAlgorithms,
  });
  await saveChallenge(ctx, 'register', owner.id, owner.account_id, options.challenge);
  return options;
}

export interface RegisteredPasskey {
  id: string;
  name: string;
}

/**
 * Checks the answer to the pending registration challenge (taken once: single use) — type
 * webauthn.create, origin and RP ID from config, user presence and verification, a supported
 * key algorithm — then stores the passkey and audits `passkey.registered` in one transaction.
 *
 * `mayRegister` runs under the account row's lock, which every change to the account's
 * credentials takes, and throws to refuse: the caller's rule is checked against the credentials
 * as they are when the passkey is stored, not as they were a moment before.
 */
export async function registerPasskey(
  ctx: RegistrationContext,
  owner: PasskeyOwner,
  input: { response: RegistrationResponseJSON; name: string },
  info: { ip: string | null; userAgent: string | null },
  mayRegister: (trx: Queryable) => Promise<void>,
): Promise<RegisteredPasskey> {
  const challenge = await takeChallenge(ctx, 'register', owner.id, owner.account_id);
  if (!challenge) throw passkeyErrors.challengeExpired();
  const rp = relyingParty(ctx.config);
  let verification: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verification = await verifyRegistrationResponse({
      response: input.response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      expectedType: 'webauthn.create',
      requireUserVerification: true,
      supportedAlgorithmIDs: supportedAlgorithms,
    });
  } catch (error) {
    ctx.logger.info({ account_id: owner.account_id, reason: (error as Error).message }, 'passkey registration refused');
    throw passkeyErrors.registrationInvalid();
  }
  if (!verification.verified) throw passkeyErrors.registrationInvalid();
  const { credential, aaguid, credentialDeviceType, credentialBackedUp } = verification.registrationInfo;

  const now = ctx.now();
  return ctx.db.transaction(async (trx) => {
    await lockAccountRow(trx, owner.account_id);
    await mayRegister(trx);
    // Counted again under the account's lock: two registrations in flight cannot both pass the limit.
    if ((await listPasskeys(trx, owner.account_id)).length >= maxPasskeysPerAccount) throw passkeyErrors.limitReached();
    const id = await insertPasskey(trx, {
      accountId: owner.account_id,
      credentialId: credential.id,
      publicKey: credential.publicKey,
      counter: credential.counter,
      transports: credential.transports ?? input.response.response.transports ?? [],
      aaguid,
      name: input.name,
      deviceType: credentialDeviceType,
      backedUp: credentialBackedUp,
      at: now,
    });
    if (!id) throw passkeyErrors.alreadyRegistered();
    await recordAudit(trx, {
      action: 'passkey.registered',
      actor_id: owner.account_id,
      target_account_id: owner.account_id,
      ip: info.ip,
      user_agent: info.userAgent,
      details: { credential_id: id, name: input.name, aaguid },
      at: now,
    });
    return { id, name: input.name };
  });
}
