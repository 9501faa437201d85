import { emailCodeVerifier, type EmailCodeProof } from './email-code/email-code.verifier.ts';
import { passwordVerifier, type PasswordProof } from './password/password.verifier.ts';
import { totpVerifier, type TotpProof } from './totp/totp.verifier.ts';
import type { Verifier } from './verifier.ts';

/**
 * The proof each verification method takes. Passkeys and upstream sign-in (Google, Microsoft)
 * are added here with their verifier below; the mapped type makes a method without a verifier
 * fail to compile.
 */
export interface Proofs {
  password: PasswordProof;
  email_code: EmailCodeProof;
  totp: TotpProof;
}

export type VerificationMethod = keyof Proofs;

/** The one list of verifiers. */
export const verifiers: { readonly [M in VerificationMethod]: Verifier<Proofs[M]> } = {
  password: passwordVerifier,
  email_code: emailCodeVerifier,
  totp: totpVerifier,
};
