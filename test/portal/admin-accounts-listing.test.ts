import { createInstance } from 'i18next';
import { describe, expect, it } from 'vitest';
import { ACCOUNT_SEARCH_LIMIT, pendingChange } from '../../portal/src/admin/accounts/account-view.ts';
import { lockFacts } from '../../portal/src/admin/accounts/lock-facts.ts';
import type { AccountLock } from '../../portal/src/api/admin.ts';
import en from '../../portal/src/i18n/en.json' with { type: 'json' };
import sv from '../../portal/src/i18n/sv.json' with { type: 'json' };
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

const i18n = createInstance();
await i18n.init({ resources: { en: { translation: en }, sv: { translation: sv } }, lng: 'en', interpolation: { escapeValue: false } });

describe('how a lock began, under its badge', () => {
  const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
  const lock: AccountLock = { locked_at: '2026-11-27T15:05:09.000Z', consecutive_failures: 12, until_password_reset: false, ip: '203.0.113.7', user_agent: firefox };

  it.each([
    [
      'a window lock',
      lock,
      'Locked on 2026-11-27 15:05 UTC after 12 failed attempts in a row, the last from 203.0.113.7 (Firefox on Linux)',
      'Låstes 2026-11-27 15:05 UTC efter 12 misslyckade försök i rad, det senaste från 203.0.113.7 (Firefox på Linux)',
    ],
    [
      'the lock after 100 in a row',
      { ...lock, consecutive_failures: 100, until_password_reset: true },
      'Locked on 2026-11-27 15:05 UTC until a password reset, after 100 failed attempts in a row, the last from 203.0.113.7 (Firefox on Linux)',
      'Låstes 2026-11-27 15:05 UTC tills lösenordet återställs, efter 100 misslyckade försök i rad, det senaste från 203.0.113.7 (Firefox på Linux)',
    ],
    [
      'no address, no User-Agent, no count',
      { ...lock, consecutive_failures: null, ip: null, user_agent: null },
      'Locked on 2026-11-27 15:05 UTC after too many failed attempts, the last from Unknown browser',
      'Låstes 2026-11-27 15:05 UTC efter för många misslyckade försök, det senaste från Okänd webbläsare',
    ],
  ] as const)('%s', (_name, given, english, swedish) => {
    expect(lockFacts(given, i18n.getFixedT('en'))).toBe(english);
    expect(lockFacts(given, i18n.getFixedT('sv'))).toBe(swedish);
  });
});
