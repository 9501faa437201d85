import type { FirstFactor, LoginState } from './steps.ts';

export interface CredentialCounts {
  password: number;
  oidc: number;
  webauthn: number;
  totp: number;
}

/** Everything the next step depends on. Gathered by the login service; no I/O happens here. */
export interface StepFacts {
  /** null when no account has this email. */
  account: { passwordResetRequired: boolean } | null;
  credentials: CredentialCounts;
  /** How this login session proved the first factor, or null when it has not yet. */
  firstFactor: FirstFactor | null;
  /** A TOTP code was verified in this login session. */
  secondFactorVerified: boolean;
  /** The browser carries a remembered-device mark for this account that is still valid. */
  deviceRemembered: boolean;
  /** The person created a credential or chose to skip in AskedCreateCredential. */
  createCredentialAnswered: boolean;
}

/** Credentials that prove a first factor on their own. TOTP is a second factor only. */
export function firstFactorCredentials(c: CredentialCounts): number {
  return c.password + c.oidc + c.webauthn;
}

/**
 * A first factor that proves two factors on its own: a user-verified passkey is the device
 * (possession) unlocked by the person's PIN or biometric (knowledge or inherence). Asking for a
 * TOTP code after it would add nothing, so it completes the sign-in (amr `hwk`, LoA 2).
 */
export function isMultiFactor(firstFactor: FirstFactor | null): boolean {
  return firstFactor === 'webauthn';
}

/**
 * The one decision of the sign-in flow (see the diagram in steps.ts). Unknown emails take the
 * same path as accounts without a usable credential, so the answer to Start does not reveal
 * whether an account exists. An email code is never a second factor: a TOTP-enrolled account
 * signed in by code still goes through MfaRequired.
 */
export function decideNextStep(facts: StepFacts): LoginState {
  const { account, credentials } = facts;
  if (account === null) return 'OTPRequired';
  if (account.passwordResetRequired) return 'PasswordResetRequired';

  if (facts.firstFactor === null) {
    return firstFactorCredentials(credentials) === 0 ? 'OTPRequired' : 'CredentialsRequired';
  }

  if (!facts.secondFactorVerified && !isMultiFactor(facts.firstFactor)) {
    if (credentials.totp >= 2) return 'TOTPResetRequired';
    if (credentials.totp === 1 && !facts.deviceRemembered) return 'MfaRequired';
  }

  if (
    facts.firstFactor === 'email_code' &&
    firstFactorCredentials(credentials) === 0 &&
    !facts.createCredentialAnswered
  ) {
    return 'AskedCreateCredential';
  }
  return 'Done';
}
