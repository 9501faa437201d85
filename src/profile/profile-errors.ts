import { AppError } from '../http/app-error.ts';

/** Errors of the profile's two-factor and credential calls; `type` is what the portal translates. */
export const profileErrors = {
  reauthenticationRequired: () =>
    new AppError('reauthentication_required', 403, 'Please sign in again to change how you sign in'),
  /**
   * Told apart from reauthenticationRequired: signing in again with the password alone would only
   * be refused again, so the portal must say which sign-in is needed (signed-in.ts).
   */
  secondFactorSessionRequired: () =>
    new AppError('profile/mfa-required', 403, 'Sign in again with your passkey, or with your password and authenticator code, to change how you sign in'),
  totpRequired: () => new AppError('totp/required', 422, 'Please enter the TOTP code'),
  totpNoPending: () => new AppError('totp/no-pending', 409, 'No authenticator setup in progress, please start again'),
  totpInvalid: () => new AppError('totp/invalid', 401, 'Invalid code. Please try again.'),
  passwordRequired: () => new AppError('credential/password-required', 409, 'The password of a user account cannot be removed'),
  lastSignInMethod: () =>
    new AppError('credential/last-sign-in-method', 409, 'This is your last way to sign in besides email codes; add another one first'),
  operatorSecondFactor: () =>
    new AppError('credential/second-factor-required', 409, 'An operator account must keep an authenticator app or a passkey'),
  noPassword: () => new AppError('password/none', 409, 'This account has no password to change'),
  currentPasswordInvalid: () => new AppError('password/current-invalid', 403, 'The current password is not correct'),
  jsonRequired: () => new AppError('unsupported_media_type', 415, 'Send the request as application/json'),
};
