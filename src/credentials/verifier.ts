import type { AccountRecord } from '../accounts/accounts.repository.ts';
import type { Context } from '../context.ts';
import type { AppError } from '../http/app-error.ts';
import type { LoginSession } from '../login/login-session.ts';
import type { FirstFactor, LoginState } from '../login/steps.ts';
import type { CredentialRecord } from './credentials.repository.ts';

/** What a verifier sees: the login session, and the account with its credentials (null when unknown). */
export interface VerifyInput {
  ctx: Context;
  session: LoginSession;
  account: AccountRecord | null;
  credentials: readonly CredentialRecord[];
}

export type VerifyResult =
  | {
      ok: true;
      /** The factor proven: a first factor (FirstFactor) or the second ('totp'). */
      factor: FirstFactor | 'totp';
      /** RFC 8176 method references recorded in the portal session's amr. */
      amr: readonly string[];
      credentialId: string | null;
    }
  | {
      ok: false;
      error: AppError;
      /** Whether this failure counts towards the per-account lockout. */
      countsAsFailure: boolean;
    };

/**
 * One way of proving who someone is. A new credential type is a folder under src/credentials/
 * implementing this, plus one line in registry.ts. Verifiers never answer differently for an
 * unknown account than for a known one without the credential.
 */
export interface Verifier<Proof> {
  /** 'first' proves identity alone; 'second' (TOTP) only after a first factor. */
  readonly kind: 'first' | 'second';
  /** Login states in which this verifier may run. */
  readonly acceptedIn: readonly LoginState[];
  verify(input: VerifyInput, proof: Proof): Promise<VerifyResult>;
}
