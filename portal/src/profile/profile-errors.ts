import { knownServerMessageKey } from '../login/error-messages.ts';
import { SECOND_FACTOR_PARAM } from '../login/second-factor.ts';

/**
 * What a failed profile call means for the page. The server's `type` decides; the portal never
 * guesses from the status alone except where the contract gives no type.
 * - signed-out: the session is gone (401 other than a wrong code) → /login, and back (sessionExpiredUrl);
 * - reauth: the change needs a new sign-in → /login?email=…&return_to=…, for a `reason`:
 *   - `recent-sign-in` (403 reauthentication_required): one within the last 5 minutes, any method;
 *   - `second-factor` (403 profile/mfa-required): the second factors of an account that has one
 *     change only from a sign-in that proved one (passkey, or password and authenticator code).
 *     Told apart because the password alone would be refused again, and the person would go round
 *     in circles. `operator/mfa-required`, the console's type that the profile answered before,
 *     means the same.
 * - network: no answer, or the service is down;
 * - rejected: the server refused this one call (its `type` says why).
 */
export type ProfileFailure =
  | { kind: 'signed-out' }
  | { kind: 'reauth'; reason: ReauthReason }
  | { kind: 'network' }
  | { kind: 'rejected'; status: number; type: string | undefined };

export type ReauthReason = 'recent-sign-in' | 'second-factor';

/** 403 types that send the person to sign in again, and why. */
const REAUTH_TYPES = new Map<string | undefined, ReauthReason>([
  ['reauthentication_required', 'recent-sign-in'],
  ['profile/mfa-required', 'second-factor'],
  ['operator/mfa-required', 'second-factor'],
]);

/** 401 answers that are about the submitted code, not about the session. */
const CODE_TYPES = new Set(['totp/invalid']);

interface ErrorLike {
  status: number;
  detail: { type: string }[];
}

function isErrorLike(error: unknown): error is ErrorLike {
  return typeof error === 'object' && error !== null && typeof (error as ErrorLike).status === 'number' && Array.isArray((error as ErrorLike).detail);
}

export function profileFailure(error: unknown): ProfileFailure {
  if (!isErrorLike(error)) return { kind: 'rejected', status: 0, type: undefined };
  const type = error.detail[0]?.type;
  if (error.status === 0 || error.status === 503) return { kind: 'network' };
  const reason = error.status === 403 ? REAUTH_TYPES.get(type) : undefined;
  if (reason) return { kind: 'reauth', reason };
  if (error.status === 401 && !(type && CODE_TYPES.has(type))) return { kind: 'signed-out' };
  return { kind: 'rejected', status: error.status, type };
}

/**
 * Where a person goes to sign in again: the login page, starting at once with their email, and
 * back to `returnTo` (the page they were on) when done. For a second factor, `second_factor=1`
 * makes the login page ask for the passkey, or the password and the authenticator code.
 */
export function reauthUrl(email: string, returnTo = '/profile', reason: ReauthReason = 'recent-sign-in'): string {
  const query = new URLSearchParams({ email, return_to: returnTo });
  if (reason === 'second-factor') query.set(SECOND_FACTOR_PARAM, '1');
  return `/login?${query.toString()}`;
}

export const LOGIN_PATH = '/login';

/**
 * Where a person whose session ended (a 401 from a profile call) goes: the login page says why
 * ("Session expired, please log in again") and, once they are signed in, brings them back to the
 * page they were on (`return_to` is a local path; the login page follows nothing else).
 */
export function sessionExpiredUrl(returnTo: string): string {
  return `${LOGIN_PATH}?${new URLSearchParams({ error: 'session_expired', return_to: returnTo }).toString()}`;
}

/** What the setup page does after a failed activation. */
export type ActivateOutcome =
  | 'signed-out'
  | 'reauth'
  /** 409 totp/no-pending: the pending secret expired; load a new one (new QR). */
  | 'expired'
  /** 422 totp/required: no code was sent. */
  | 'required'
  /** 401 totp/invalid: wrong code. */
  | 'invalid'
  | 'too-many'
  | 'network'
  | 'unexpected';

export function activateOutcome(error: unknown): ActivateOutcome {
  const failure = profileFailure(error);
  if (failure.kind !== 'rejected') return failure.kind;
  switch (failure.type) {
    case 'totp/no-pending':
      return 'expired';
    case 'totp/required':
      return 'required';
    case 'totp/invalid':
      return 'invalid';
    case 'too_many_requests':
      return 'too-many';
    default:
      return 'unexpected';
  }
}

/**
 * What a failed password change tells the person: an i18n key, and whether it is about the
 * current password (focus goes there). A refused new password says which rule it broke — the
 * form's own rules were all met, so the server's reason (e.g. too common) is the news.
 */
export type PasswordChangeFailure = { kind: 'signed-out' } | { kind: 'problem'; key: string; current: boolean };

const PASSWORD_CHANGE_KEYS: Record<string, string> = {
  'password/current-invalid': 'profile.change_password.current_invalid',
  account_locked: 'errors.account_locked',
  too_many_requests: 'errors.too_many_requests',
};

export function passwordChangeFailure(error: unknown): PasswordChangeFailure {
  const failure = profileFailure(error);
  if (failure.kind === 'signed-out') return failure;
  const problem = (key: string, current = false): PasswordChangeFailure => ({ kind: 'problem', key, current });
  if (failure.kind === 'network') return problem('errors.network_error');
  if (failure.kind !== 'rejected' || !failure.type) return problem('profile.change_password.failed');
  if (failure.type === 'weak_password') return problem(knownServerMessageKey(error) ?? 'errors.weak_password');
  const key = PASSWORD_CHANGE_KEYS[failure.type];
  return key ? problem(key, failure.type === 'password/current-invalid') : problem('profile.change_password.failed');
}
