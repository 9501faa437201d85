import { AppError } from '../../http/app-error.ts';

/** Errors of passkey sign-in and registration; `type` is what the portal translates. */
export const passkeyErrors = {
  /** No challenge is pending (never asked, expired, or already answered once). */
  challengeExpired: () => new AppError('passkey/challenge-expired', 410, 'The passkey request expired, please try again'),
  /** The account has no passkey to sign in with. */
  none: () => new AppError('passkey/none', 409, 'This account has no passkey'),
  /** The answer names a credential that is not one of this account's passkeys. */
  unknown: () => new AppError('passkey/unknown', 401, 'This passkey is not registered for this account'),
  /** Signature, origin, RP ID, user verification or counter check failed. */
  invalid: () => new AppError('passkey/invalid', 401, 'The passkey could not be verified'),
  /** A registration answer failed its checks. */
  registrationInvalid: () => new AppError('passkey/registration-invalid', 400, 'The new passkey could not be verified'),
  alreadyRegistered: () => new AppError('passkey/already-registered', 409, 'This passkey is already registered'),
  /** The account has maxPasskeysPerAccount passkeys. */
  limitReached: () => new AppError('passkey/limit-reached', 409, 'This account has the most passkeys it can have; remove one to add another'),
};
