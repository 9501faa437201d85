import { verifyAuthenticationResponse, type AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { Verifier, VerifyResult } from '../verifier.ts';
import { takeChallenge } from './challenges.ts';
import { passkeyErrors } from './passkey-errors.ts';
import { advanceCounter, listPasskeys } from './passkeys.repository.ts';
import { relyingParty } from './relying-party.ts';

export interface WebauthnProof {
  response: AuthenticationResponseJSON;
}

const fail = (error: VerifyResult & { ok: false }) => error;
const invalid = () => fail({ ok: false, error: passkeyErrors.invalid(), countsAsFailure: true });

/**
 * A passkey as the first factor, answering the challenge of POST /auth/login/passkey/options.
 * The checks, in order: the challenge of this login session is taken (single use, short TTL,
 * issued to this account); the credential is one of this account's passkeys (another account's
 * id is refused like an unknown one); the signature over authenticatorData + clientDataJSON
 * verifies with the stored key; type is webauthn.get, origin and RP ID are Nyckel's (from
 * config, never from the request); user presence and user verification flags are set; the
 * signature counter moved forward (a counter at or below the stored one, when either is
 * non-zero, suggests a cloned authenticator and is refused) and is stored atomically.
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
    try {
      const { verified, authenticationInfo } = await verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        expectedType: 'webauthn.get',
        requireUserVerification: true,
        credential: { id: passkey.credential_id, publicKey: passkey.public_key, counter: passkey.counter, transports: passkey.transports },
      });
      if (!verified) return invalid();
      if (!(await advanceCounter(ctx.db, passkey.id, passkey.counter, authenticationInfo.newCounter))) return invalid();
    } catch (error) {
      // The library's reason (wrong origin, counter, flags) helps an operator; it holds no secret.
      ctx.logger.info({ credential_id: passkey.id, reason: (error as Error).message }, 'passkey assertion refused');
      return invalid();
    }
    return { ok: true, factor: 'webauthn', amr: ['hwk', 'mfa'], credentialId: passkey.id };
  },
};
