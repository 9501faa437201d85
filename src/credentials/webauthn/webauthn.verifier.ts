import { verifyAuthenticationResponse, type AuthenticationResponseJSON } from '@simplewebauthn/server';
import { recordAudit } from '../../audit/audit.ts';
import type { Context } from '../../context.ts';
import type { Verifier, VerifyResult } from '../verifier.ts';
import { takeChallenge } from './challenges.ts';
import { passkeyErrors } from './passkey-errors.ts';
import { listPasskeys, recordAssertion, type PasskeyDeviceType, type PasskeyRecord } from './passkeys.repository.ts';
import { relyingParty } from './relying-party.ts';

export interface WebauthnProof {
  response: AuthenticationResponseJSON;
}

const fail = (error: VerifyResult & { ok: false }) => error;
const invalid = () => fail({ ok: false, error: passkeyErrors.invalid(), countsAsFailure: true });

/** What a verified assertion says about its authenticator. */
interface Assertion {
  counter: number;
  deviceType: PasskeyDeviceType;
  backedUp: boolean;
}

/**
 * Why a correctly signed assertion suggests a copy of the key, or null. A signature counter that
 * did not move forward (when either it or the stored one is non-zero): the key signed elsewhere
 * since. Backup eligibility (BE) that differs from registration: WebAuthn Level 3 §6.1.3 says it
 * never changes for a credential, so another authenticator holds the key.
 */
function cloneSignal(passkey: PasskeyRecord, assertion: Assertion): 'counter' | 'backup_eligibility' | null {
  if ((assertion.counter > 0 || passkey.counter > 0) && assertion.counter <= passkey.counter) return 'counter';
  if (passkey.device_type !== null && passkey.device_type !== assertion.deviceType) return 'backup_eligibility';
  return null;
}

/**
 * Audited as its own event for the operators (the sign-in's `login.failed` says `passkey/invalid`,
 * as the answer does): a copied key is worth a look, and the reason is never an oracle to the one
 * holding it.
 */
async function auditCloneSuspected(ctx: Context, passkey: PasskeyRecord, signal: 'counter' | 'backup_eligibility', assertion: Assertion): Promise<void> {
  ctx.logger.warn({ credential_id: passkey.id, signal }, 'passkey assertion suggests a cloned authenticator');
  await recordAudit(ctx.db, {
    action: 'passkey.clone_suspected',
    target_account_id: passkey.account_id,
    details: {
      credential_id: passkey.id,
      reason: 'passkey/clone-suspected',
      signal,
      stored: { counter: passkey.counter, device_type: passkey.device_type },
      seen: { counter: assertion.counter, device_type: assertion.deviceType },
    },
    at: ctx.now(),
  });
}

/**
 * A passkey as the first factor, answering the challenge of POST /auth/login/passkey/options.
 * The checks, in order: the challenge of this login session is taken (single use, short TTL,
 * issued to this account); the credential is one of this account's passkeys (another account's
 * id is refused like an unknown one); the signature over authenticatorData + clientDataJSON
 * verifies with the stored key; type is webauthn.get, origin and RP ID are Nyckel's (from
 * config, never from the request); user presence and user verification flags are set; then, the
 * signature known good, neither the counter nor backup eligibility suggests a cloned
 * authenticator (cloneSignal), and the counter and backup state are stored atomically.
 *
 * The library is given a stored counter of 0 so that it does not compare counters itself: it
 * does so before the signature, where anyone could send a low counter under the credential's id
 * and raise a clone alarm without holding the key.
 *
 * A user-verified passkey proves possession of the device and the person's PIN or biometric:
 * two factors at once, so no TOTP step follows (next-step.ts) and the amr is `hwk` + `mfa`
 * (RFC 8176), which the acr (LoA 2) and the operator guard count as a second factor.
 */
export const webauthnVerifier: Verifier<WebauthnProof> = {
  kind: 'first',
  acceptedIn: ['CredentialsRequired'],
  async verify({ ctx, session, account }, { response }) {
    if (!account) return invalid();
    const challenge = await takeChallenge(ctx, 'login', session.id, account.id);
    // Not a failed guess: nothing was checked. The person asks for a new challenge.
    if (!challenge) return fail({ ok: false, error: passkeyErrors.challengeExpired(), countsAsFailure: false });

    const passkey = (await listPasskeys(ctx.db, account.id)).find((p) => p.credential_id === response.id);
    if (!passkey) return fail({ ok: false, error: passkeyErrors.unknown(), countsAsFailure: true });

    const rp = relyingParty(ctx.config);
    let assertion: Assertion;
    try {
      const { verified, authenticationInfo } = await verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        expectedType: 'webauthn.get',
        requireUserVerification: true,
        credential: { id: passkey.credential_id, publicKey: passkey.public_key, counter: 0, transports: passkey.transports },
      });
      if (!verified) return invalid();
      const { newCounter, credentialDeviceType, credentialBackedUp } = authenticationInfo;
      assertion = { counter: newCounter, deviceType: credentialDeviceType, backedUp: credentialBackedUp };
    } catch (error) {
      // The library's reason (wrong origin, flags) helps an operator; it holds no secret.
      ctx.logger.info({ credential_id: passkey.id, reason: (error as Error).message }, 'passkey assertion refused');
      return invalid();
    }
    const signal = cloneSignal(passkey, assertion);
    if (signal) {
      await auditCloneSuspected(ctx, passkey, signal, assertion);
      return invalid();
    }
    if (!(await recordAssertion(ctx.db, passkey.id, passkey.counter, assertion))) return invalid();
    return { ok: true, factor: 'webauthn', amr: ['hwk', 'mfa'], credentialId: passkey.id };
  },
};
