import { generateAuthenticationOptions, type PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import type { Context } from '../../context.ts';
import { saveChallenge } from './challenges.ts';
import { passkeyErrors } from './passkey-errors.ts';
import { listPasskeys } from './passkeys.repository.ts';
import { ceremonyTimeoutMs, relyingParty } from './relying-party.ts';

/**
 * The options of navigator.credentials.get() for one login session: a fresh challenge (the
 * library's 32 random bytes), this account's passkeys only, and user verification required
 * (the passkey is the whole sign-in, so the PIN or biometric is the second factor).
 */
export async function authenticationOptions(
  ctx: Pick<Context, 'db' | 'store' | 'now' | 'config'>,
  loginSessionId: string,
  accountId: string,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const passkeys = await listPasskeys(ctx.db, accountId);
  if (passkeys.length === 0) throw passkeyErrors.none();
  const options = await generateAuthenticationOptions({
    rpID: relyingParty(ctx.config).id,
    allowCredentials: passkeys.map((p) => ({ id: p.credential_id, transports: p.transports })),
    userVerification: 'required',
    timeout: ceremonyTimeoutMs,
  });
  await saveChallenge(ctx, 'login', loginSessionId, accountId, options.challenge);
  return options;
}
