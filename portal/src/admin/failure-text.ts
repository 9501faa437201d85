import { isApiError } from '../api/client.ts';

/** The catalogue keys failureText reads; `limitKey` names the one a caller has for its own 429. */
export type FailureKey =
  | 'admin.role_refused'
  | 'errors.too_many_requests'
  | 'admin.too_many'
  | 'admin.retry_in_seconds'
  | 'admin.retry_in_minutes'
  | 'admin.unavailable'
  | 'admin.mail_undeliverable';

/** The i18next `t` as failureText uses it. */
interface Translate<K extends string> {
  (key: K): string;
  (key: K, values: { count: number }): string;
}

/**
 * A console action's failure message, followed by why when the answer says it: a 403 that
 * reached the page (not a sign-in problem, see consoleErrorKind) means the operator's role may
 * not do this; a 429, that the action's budget is spent (a reset mail's per-address mail budget,
 * an account's unlocks or sign-outs this hour) and how long until it may be tried again, from the
 * answer's Retry-After (budgets run up to an hour: "a moment" misled the operator into retrying for
 * 13 minutes); a 503, that something the server needs (the database, the store, the mail server)
 * could not be reached, and trying again shortly may work; a 422 `mail_undeliverable`, that the
 * mail server refuses the person's address.
 *
 * `limitKey` says what a 429 means for this action, in place of "Too many attempts." (the reset
 * mail's: the person may already have several mails).
 */
export function failureText<K extends string = never>(
  message: string,
  error: unknown,
  t: Translate<FailureKey | K>,
  { limitKey }: { limitKey?: K } = {},
): string {
  if (!isApiError(error)) return message;
  if (error.detail[0]?.type === 'mail_undeliverable') return withReason(message, t('admin.mail_undeliverable'));
  if (error.status === 403) return withReason(message, t('admin.role_refused'));
  if (error.status === 429) {
    const wait = error.retryAfterSeconds;
    if (wait === undefined || wait <= 0) return withReason(message, limitKey ? t(limitKey) : t('errors.too_many_requests'));
    return withReason(message, `${t(limitKey ?? 'admin.too_many')} ${retryIn(wait, t)}`);
  }
  if (error.status === 503) return withReason(message, t('admin.unavailable'));
  return message;
}

/**
 * "Try again in 14 minutes." for a Retry-After of 808 s: whole seconds under a minute, else whole
 * minutes, rounded up, so the operator who waits as long is not refused again.
 */
export function retryIn(seconds: number, t: Translate<FailureKey>): string {
  const whole = Math.ceil(seconds);
  return whole < 60 ? t('admin.retry_in_seconds', { count: whole }) : t('admin.retry_in_minutes', { count: Math.ceil(whole / 60) });
}

/**
 * Two sentences: the spec's failure messages have no full stop ("Failed to send password reset
 * email"), and run together with the reason they would read as one garbled sentence.
 */
function withReason(message: string, reason: string): string {
  return /[.!?]$/.test(message) ? `${message} ${reason}` : `${message}. ${reason}`;
}
