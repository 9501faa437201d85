import { describe, expect, it } from 'vitest';
import { ACCOUNT_SEARCH_LIMIT, pendingChange } from '../../portal/src/admin/accounts/account-view.ts';
import { searchLimit } from '../../src/admin/accounts/account-listing.service.ts';

describe('the accounts page', () => {
  it("says a search was cut short at the server's own limit", () => {
    expect(ACCOUNT_SEARCH_LIMIT).toBe(searchLimit);
  });

  it.each([
    ['none waits', null, null],
    ['absent (an older server)', undefined, null],
    ['its link still works', '2025-06-30T12:30:00.000Z', 'pat@new.example'],
    ['its link ran out while the page was open', '2025-06-30T11:59:59.000Z', null],
  ] as const)('shows a pending email change only while its link works: %s', (_name, expiresAt, shown) => {
    const now = new Date('2025-06-30T12:00:00.000Z');
    const account = { pending_email_change: expiresAt === null || expiresAt === undefined ? expiresAt : { email: 'pat@new.example', expires_at: expiresAt } };
    expect(pendingChange(account, now)?.email ?? null).toBe(shown);
  });
});
