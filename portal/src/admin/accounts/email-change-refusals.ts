import { isApiError } from '../../api/client.ts';

/** The refusals the Change email dialog words itself; anything else is the generic failure with its reason. */
export const REFUSAL_KEYS: Record<string, string> = {
  'account/email-taken': 'admin.email_change.taken',
  'account/email-unchanged': 'admin.email_change.unchanged',
  'account/operator-account': 'admin.email_change.operator_account',
  validation_error: 'admin.email_change.malformed',
};

/** The dialog's own text for a refused request, or undefined for the generic failure. */
export function refusalKey(failure: unknown): string | undefined {
  return isApiError(failure) ? REFUSAL_KEYS[failure.type ?? ''] : undefined;
}

/** A withdrawal's 404 when the account has no change waiting for confirmation. */
export const NONE_PENDING = 'account/no-pending-email-change';

/**
 * A withdrawal's 409 when the change it meant to withdraw had in fact been made (its confirmation
 * was reported failed): the server finished it instead, so the account now has the new address.
 */
export const ALREADY_MADE = 'account/email-change-made';
