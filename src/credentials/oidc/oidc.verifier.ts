import { upstreamErrors } from '../../upstream/upstream-errors.ts';
import type { Verifier } from '../verifier.ts';
import { findOidcCredential, type OidcIdentityKey } from './oidc-credentials.repository.ts';

/** An identity whose ID token openid-client has validated (src/upstream/upstream-callback.ts). */
export type OidcProof = OidcIdentityKey;

/**
 * Google or Microsoft as a first factor (amr `fed`: federated, no RFC 8176 value fits). The
 * upstream has authenticated someone; this only asks whether that identity is bound to the
 * account of the login session. A mismatch is not a guess at a secret, so it does not count
 * towards the lockout.
 */
export const oidcVerifier: Verifier<OidcProof> = {
  kind: 'first',
  acceptedIn: ['CredentialsRequired'],
  async verify({ ctx, account }, proof) {
    const credential = await findOidcCredential(ctx.db, proof);
    if (!account || !credential) return { ok: false, error: upstreamErrors.notLinked(), countsAsFailure: false };
    if (credential.account_id !== account.id) return { ok: false, error: upstreamErrors.identityInUse(), countsAsFailure: false };
    return { ok: true, factor: 'oidc', amr: ['fed'], credentialId: credential.id };
  },
};
