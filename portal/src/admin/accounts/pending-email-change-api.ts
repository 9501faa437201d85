import { request } from '../../api/client.ts';
import type { PendingEmailChange } from '../../api/admin.ts';

/**
 * The account's pending email change (GET /api/accounts/{id}/email-change): read right after a
 * request, so the row shows where the account is being moved and until when. 404
 * `account/no-pending-email-change` when none waits.
 */
export function getPendingEmailChange(accountId: string): Promise<PendingEmailChange> {
  return request('GET', `/api/accounts/${encodeURIComponent(accountId)}/email-change`);
}
