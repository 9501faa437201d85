import { isApiError } from '../api/client.ts';

/**
 * A console action's failure message. A 403 that reached the page (not a sign-in problem, see
 * consoleErrorKind) means the operator's role may not do this: say so after the message.
 */
export function failureText(message: string, error: unknown, roleRefused: string): string {
  return isApiError(error) && error.status === 403 ? `${message} ${roleRefused}` : message;
}
