import { emailCodeVerifier, type EmailCodeProof } from './email-code/email-code.verifier.ts';
import { oidcVerifier, type OidcProof } from './oidc/oidc.verifier.ts';
import { passwordVerifier, type PasswordProof } from './password/password.verifier.ts';
import { totpVerifier, type TotpProof } from './totp/totp.verifier.ts';
import type { Verifier } from './verifier.ts';
import { webauthnVerifier, type WebauthnProof } from './webauthn/webauthn.verifier.ts';

/**
 * The proof each verification method takes, with its verifier below; the mapped type makes a
 * method without a verifier fail to compile.
 */
export interface Proofs {
  password: PasswordProof;
  email_code: EmailCodeProof;
  oidc: OidcProof;
  totp: TotpProof;
  webauthn: WebauthnProof;
}

export type VerificationMethod = keyof Proofs;

/** The one list of verifiers. */
export const verifiers: { readonly [M in VerificationMethod]: Verifier<Proofs[M]> } = {
  password: passwordVerifier,
  email_code: emailCodeVerifier,
  oidc: oidcVerifier,
  totp: totpVerifier,
  webauthn: webauthnVerifier,
};
