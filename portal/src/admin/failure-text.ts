import { isApiError } from '../api/client.ts';

/**
 * A console action's failure message, followed by why when the answer says it: a 403 that
 * reached the page (not a sign-in problem, see consoleErrorKind) means the operator's role may
 * not do this; a 429, that the action's budget is spent (a reset mail's per-address mail budget,
 * an account's unlocks or sign-outs this hour) and waiting helps; a 503, that something the
 * server needs (the database, the store, the mail server) could not be reached, and trying again
 * shortly may work; a 422 `mail_undeliverable`, that the mail server refuses the person's address.
 */
export function failureText(
  message: string,
  error: unknown,
  t: (key: 'admin.role_refused' | 'errors.too_many_requests' | 'admin.unavailable' | 'admin.mail_undeliverable') => string,
): string {
  if (!isApiError(error)) return message;
  if (error.detail[0]?.type === 'mail_undeliverable') return withReason(message, t('admin.mail_undeliverable'));
  if (error.status === 403) return withReason(message, t('admin.role_refused'));
  if (error.status === 429) return withReason(message, t('errors.too_many_requests'));
  if (error.status === 503) return withReason(message, t('admin.unavailable'));
  return message;
}

/**
 * Two sentences: the spec's failure messages have no full stop ("Failed to send password reset
 * email"), and run together with the reason they would read as one garbled sentence.
 */
function withReason(message: string, reason: string): string {
  return /[.!?]$/.test(message) ? `${message} ${reason}` : `${message}. ${reason}`;
}
