/**
 * The one map from a server error `type` (the first entry of `detail`) to a translated message.
 * The server decides the next step; these only choose what to tell the person and whether the
 * current form stays usable:
 * - soft: keep the form, show the message beneath it;
 * - hard: the current code can no longer work (one-time code expired): hide the code input, offer
 *   a new code;
 * - restart: the login session is gone, in another state, or out of tries for its codes (the
 *   server refuses a new code then): hide the form, offer Start again, and go back to Start after
 *   RESTART_DELAY_MS.
 */
import { LOCK_WAIT_KEYS, lockWait } from './lock-wait.ts';

export const RESTART_DELAY_MS = 3000;

export type LoginErrorKind = 'soft' | 'hard' | 'restart';

export interface LoginError {
  /** i18n key of the message. */
  key: string;
  kind: LoginErrorKind;
  /** The server's own text, shown (translated when known) for validation-type errors. */
  serverMessage?: string;
  /** Shown instead of `key` when the answer said how long to wait: a plural message on `count`. */
  wait?: { key: string; count: number };
}

interface Mapping {
  key: string;
  kind: LoginErrorKind;
  useServerMessage?: boolean;
  /** The answer's Retry-After is how long the lock lasts (lock-wait.ts words it). */
  saysWait?: boolean;
}

export const LOGIN_ERROR_TYPES: Record<string, Mapping> = {
  invalid_credentials: { key: 'errors.invalid_credentials', kind: 'soft' },
  login_session_expired: { key: 'errors.login_session_expired', kind: 'restart' },
  login_session_missing: { key: 'errors.login_session_expired', kind: 'restart' },
  invalid_login_session_state: { key: 'errors.invalid_login_session_state', kind: 'restart' },
  account_locked: { key: 'errors.account_locked', kind: 'soft', saysWait: true },
  'otp/invalid': { key: 'errors.invalid_code', kind: 'soft' },
  'otp/session/invalid': { key: 'errors.otp_session_invalid', kind: 'hard' },
  // Not the spec's "use the link again": the code mail has no link, and only a new sign-in sends a new code.
  'otp/retries-exceeded': { key: 'errors.otp_retries_start_again', kind: 'restart' },
  'mfa/invalid': { key: 'errors.invalid_code', kind: 'soft' },
  'mfa/retries-exceeded': { key: 'errors.mfa_retries_exceeded', kind: 'restart' },
  too_many_requests: { key: 'errors.too_many_requests', kind: 'soft' },
  weak_password: { key: 'errors.weak_password', kind: 'soft', useServerMessage: true },
  validation_error: { key: 'errors.validation_error', kind: 'soft', useServerMessage: true },
  network_error: { key: 'errors.network_error', kind: 'soft' },
  // Passed in the query only (`/login?error=session_expired&return_to=…`): the profile's session
  // ended; signing in again goes back there.
  session_expired: { key: 'errors.session_expired', kind: 'soft' },
  // Nyckel's own 503 (a store or database outage), and `/login?error=service_unavailable` after an upstream sign-in.
  service_unavailable: { key: 'errors.service_unavailable', kind: 'soft' },
  // The application's sign-in request (the OIDC interaction) is over: finished already (the page
  // reached again with Back, or bookmarked) or ended before the person finished. Only the
  // application can start a new one, so the message sends them back there. Said on load
  // (use-interaction-check.ts) and after a sign-in (src/oidc/interaction.routes.ts, expired()).
  interaction_expired: { key: 'errors.interaction_expired', kind: 'soft' },
  // The mail server refused the address for good (src/mail/mail-failure.ts): only another address helps.
  mail_undeliverable: { key: 'errors.mail_undeliverable', kind: 'soft' },
  // Back from Google or Microsoft (`/login?error=<type>`): the session, when still there, stays usable.
  'oauth/provider_not_configured': { key: 'upstream.errors.provider_not_configured', kind: 'soft' },
  'oauth/provider_unavailable': { key: 'upstream.errors.provider_unavailable', kind: 'soft' },
  'oauth/state_mismatch': { key: 'upstream.errors.state_mismatch', kind: 'soft' },
  'oauth/access_denied': { key: 'upstream.errors.access_denied', kind: 'soft' },
  'oauth/provider_error': { key: 'upstream.errors.provider_error', kind: 'soft' },
  'oauth/not_linked': { key: 'upstream.errors.not_linked', kind: 'soft' },
  'oauth/identity_in_use': { key: 'upstream.errors.identity_in_use', kind: 'soft' },
  'oauth/tenant_not_allowed': { key: 'upstream.errors.tenant_not_allowed', kind: 'soft' },
};

export const DEFAULT_LOGIN_ERROR: LoginError = { key: 'errors.failed_to_authenticate', kind: 'soft' };

/**
 * English server texts the portal knows how to translate (the server answers `msg` in English:
 * the password policy's reasons, src/credentials/password/policy.ts, and zod's email check).
 * An unknown text is never shown as is, since it would be English in the Swedish UI: the
 * mapped message of its type stands in for it. A refused rule reads as a whole sentence
 * (password.errors.*), not as its line in the rules list ("An uppercase letter").
 */
export const KNOWN_SERVER_MESSAGES: Record<string, string> = {
  'Passwords do not match': 'password.mismatch',
  'Password cannot be empty': 'password.empty',
  'Password must be at least 8 characters': 'password.too_short',
  'Password must be at least 9 characters': 'password.errors.length',
  'Password must be at most 256 characters': 'password.too_long',
  'Password must contain an uppercase letter': 'password.errors.uppercase',
  'Password must contain a digit': 'password.errors.digit',
  'Password must contain a special character': 'password.errors.special',
  'Password is too common, choose another one': 'password.too_common',
  'Invalid email address': 'errors.invalid_email',
};

interface ErrorLike {
  status: number;
  detail: { type: string; msg: string }[];
  retryAfterSeconds?: number;
}

function isErrorLike(error: unknown): error is ErrorLike {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as ErrorLike).status === 'number' &&
    Array.isArray((error as ErrorLike).detail)
  );
}

/**
 * What the status alone says of an answer whose type the portal does not know (a proxy's 502 page,
 * a plain-text 429): no answer at all, too many requests, or the service failing. Null for any
 * other status. Without this such answers read "Failed to authenticate", as a wrong password does.
 */
export function statusErrorKey(status: number): string | null {
  if (status === 0) return 'errors.network_error';
  if (status === 429) return 'errors.too_many_requests';
  if (status >= 500 && status <= 599) return 'errors.service_unavailable';
  return null;
}

/**
 * A call failed for a reason that may pass (statusErrorKey), or threw something that is no answer
 * at all: the message key for a page that offers Try again. Null when the server refused the
 * request itself (another 4xx): trying again would get the same answer.
 */
export function retryableErrorKey(error: unknown): string | null {
  if (!isErrorLike(error)) return 'errors.unexpected_error';
  return statusErrorKey(error.status);
}

/**
 * Classifies anything a login call threw: by the first detail type when mapped, else by the status
 * (statusErrorKey), else the default message. Not an API error at all → the default message.
 */
export function loginErrorFrom(error: unknown): LoginError {
  if (!isErrorLike(error)) return DEFAULT_LOGIN_ERROR;
  const first = error.detail[0];
  const mapping = first ? LOGIN_ERROR_TYPES[first.type] : undefined;
  if (!first || !mapping) {
    const byStatus = statusErrorKey(error.status);
    return byStatus ? { key: byStatus, kind: 'soft' } : DEFAULT_LOGIN_ERROR;
  }
  const result: LoginError = { key: mapping.key, kind: mapping.kind };
  if (mapping.useServerMessage && first.msg) result.serverMessage = first.msg;
  const wait = mapping.saysWait ? lockWait(error.retryAfterSeconds) : null;
  if (wait) result.wait = { key: LOCK_WAIT_KEYS[wait.unit], count: wait.count };
  return result;
}

/** An error passed back in the page's query (`?error=<type>`), e.g. after an upstream sign-in. */
export function loginErrorFromType(type: string): LoginError {
  return loginErrorFrom({ status: 400, detail: [{ type, msg: '' }] });
}

/** The i18n key of the first detail's server text, when the portal knows it. */
export function knownServerMessageKey(error: unknown): string | null {
  if (!isErrorLike(error)) return null;
  return KNOWN_SERVER_MESSAGES[error.detail[0]?.msg ?? ''] ?? null;
}

/** i18next's `t`, as far as used here (the plural form picks its text by `count`). */
interface Translate {
  (key: string): string;
  (key: string, options: { count: number }): string;
}

/** The text to show: the server's text when known (translated), else the mapped message (with its wait). */
export function describeLoginError(error: LoginError, t: Translate): string {
  const known = error.serverMessage ? KNOWN_SERVER_MESSAGES[error.serverMessage] : undefined;
  if (known) return t(known);
  if (error.wait) return t(error.wait.key, { count: error.wait.count });
  return t(error.key);
}

/**
 * Setting the password from a reset link failed: no answer, too many tries, the service failing
 * (statusErrorKey), or the server refused the password (its reason, translated); anything else —
 * a used or expired link included — is the spec's "Password reset failed".
 */
export function confirmResetErrorText(error: unknown, t: Translate): string {
  if (!isErrorLike(error)) return t('errors.password_reset_failed');
  const byStatus = statusErrorKey(error.status);
  if (byStatus) return t(byStatus);
  if (isPasswordRefusal(error)) return describeLoginError(loginErrorFrom(error), t);
  return t('errors.password_reset_failed');
}

/**
 * The reset link was spent or expired after the page checked it (406 `reset_failed`, e.g. used in
 * another tab): no password can be set with it any more, only a new link helps.
 */
export function isSpentResetLink(error: unknown): boolean {
  return isErrorLike(error) && error.status === 406;
}

/** The server refused the new password itself (too common, too long): the person must change it. */
export function isPasswordRefusal(error: unknown): boolean {
  if (!isErrorLike(error) || statusErrorKey(error.status) !== null) return false;
  const type = error.detail[0]?.type;
  return type === 'weak_password' || type === 'validation_error';
}

/**
 * Sending a reset link failed: no answer, too many requests, the service failing (statusErrorKey),
 * an address the server cannot take (its check is stricter than the page's simple pattern:
 * `anna@firma.s`), or anything else. None of them says whether the address has an account.
 */
export function resetRequestErrorKey(error: unknown): string {
  if (!isErrorLike(error)) return 'errors.failed_to_send_reset_email';
  const byStatus = statusErrorKey(error.status);
  if (byStatus) return byStatus;
  if (error.detail[0]?.type === 'validation_error') return 'errors.invalid_email';
  return 'errors.failed_to_send_reset_email';
}
