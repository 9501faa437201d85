/**
 * The states of a login session. The server decides the next one (`decideNextStep` in
 * next-step.ts) and names it in every answer; the portal renders the step it is told.
 * Change this union, the diagram and next-step.ts together.
 *
 * ```mermaid
 * stateDiagram-v2
 *   [*] --> Start
 *   Start --> PasswordResetRequired: account must set a new password (migrated)
 *   Start --> OTPRequired: unknown email, or no password / upstream / passkey credential
 *   Start --> CredentialsRequired: password, Google, Microsoft or passkey available
 *   CredentialsRequired --> TOTPResetRequired: first factor ok, several TOTP credentials
 *   OTPRequired --> TOTPResetRequired: code ok, several TOTP credentials
 *   CredentialsRequired --> MfaRequired: first factor ok, one TOTP, device not remembered
 *   OTPRequired --> MfaRequired: code ok, one TOTP, device not remembered
 *   OTPRequired --> AskedCreateCredential: code ok, no other credential
 *   CredentialsRequired --> Done: first factor ok, no second factor needed (or a user-verified passkey: both)
 *   TOTPResetRequired --> AskedCreateCredential: TOTP ok (kept one), signed in by code, no other credential
 *   TOTPResetRequired --> Done: TOTP ok, one kept
 *   MfaRequired --> AskedCreateCredential: TOTP ok, signed in by code, no other credential
 *   MfaRequired --> Done: TOTP ok
 *   AskedCreateCredential --> Done: password created, or skipped
 *   PasswordResetRequired --> [*]: the person follows the emailed reset link
 *   Done --> [*]
 * ```
 */
export const loginStates = [
  'Start',
  'PasswordResetRequired',
  'OTPRequired',
  'CredentialsRequired',
  'MfaRequired',
  'TOTPResetRequired',
  'AskedCreateCredential',
  'Done',
] as const;

export type LoginState = (typeof loginStates)[number];

/** How the first factor of a login session was proven. An email code is a first factor only. */
export type FirstFactor = 'password' | 'email_code' | 'oidc' | 'webauthn';
