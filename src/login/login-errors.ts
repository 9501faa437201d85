import { AppError } from '../http/app-error.ts';

/** The sign-in flow's errors; `type` is the string the portal translates (spec, section 8). */
export const loginErrors = {
  sessionMissing: () => new AppError('login_session_missing', 401, 'Login session is expired'),
  invalidState: () => new AppError('invalid_login_session_state', 409, 'Invalid login session state'),
  invalidCredentials: () => new AppError('invalid_credentials', 401, 'Invalid credentials'),
  accountLocked: (retryAfterSeconds: number) =>
    new AppError('account_locked', 423, 'Account temporarily locked after too many failed attempts', {
      'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))),
    }),
  otpInvalid: () => new AppError('otp/invalid', 401, 'Invalid code. Please try again.'),
  otpSessionInvalid: () => new AppError('otp/session/invalid', 410, 'One-time password expired or invalid'),
  otpRetriesExceeded: () => new AppError('otp/retries-exceeded', 429, 'Too many invalid retries, use the link again'),
  mfaInvalid: () => new AppError('mfa/invalid', 401, 'Invalid code. Please try again.'),
  mfaRetriesExceeded: () => new AppError('mfa/retries-exceeded', 429, 'Too many invalid codes, please sign in again'),
};
