import { describe, expect, it } from 'vitest';
import en from '../../portal/src/i18n/en.json' with { type: 'json' };
import sv from '../../portal/src/i18n/sv.json' with { type: 'json' };
import {
  accountKinds,
  canDeleteCredential,
  credentialLabel,
  credentialNote,
  credentialText,
  filterResetLinks,
  focusAfterDelete,
  initialsOf,
  lockEnd,
  type ConsoleCredential,
} from '../../portal/src/admin/accounts/account-view.ts';
import { lastLogin } from '../../portal/src/admin/accounts/last-login.ts';
import { translate } from './translate.ts';

/** The catalogue's text with {{name}} placeholders filled, as i18next does. */
const textIn =
  (catalogue: unknown) =>
  (key: string, values: Record<string, string> = {}): string =>
    translate(catalogue, key).replace(/\{\{(\w+)\}\}/g, (_m, name: string) => values[name] ?? `{{${name}}}`);

describe('last login in the spec words (section 9)', () => {
  // Local noon, so no daylight-saving change moves a day across midnight.
  const now = new Date(2025, 5, 30, 12, 0, 0);
  const daysAgo = (days: number, hour = 12) => new Date(2025, 5, 30 - days, hour, 0, 0).toISOString();

  it.each([
    ['no login', null, 'never', 0],
    ['unreadable', 'soon', 'never', 0],
    ['earlier today', daysAgo(0, 1), 'today', 0],
    ['later today (clock skew)', daysAgo(0, 23), 'today', 0],
    ['in the future', daysAgo(-3), 'today', 0],
    ['yesterday evening', daysAgo(1, 23), 'yesterday', 1],
    ['2 days', daysAgo(2), 'days', 2],
    ['6 days', daysAgo(6), 'days', 6],
    ['7 days is 1 week', daysAgo(7), 'weeks', 1],
    ['13 days is 1 week', daysAgo(13), 'weeks', 1],
    ['14 days is 2 weeks', daysAgo(14), 'weeks', 2],
    ['29 days is 4 weeks', daysAgo(29), 'weeks', 4],
    ['30 days is 1 month', daysAgo(30), 'months', 1],
    ['59 days is 1 month', daysAgo(59), 'months', 1],
    ['60 days is 2 months', daysAgo(60), 'months', 2],
    ['364 days is 12 months', daysAgo(364), 'months', 12],
    ['365 days is 1 year', daysAgo(365), 'years', 1],
    ['729 days is 1 year', daysAgo(729), 'years', 1],
    ['730 days is 2 years', daysAgo(730), 'years', 2],
  ] as const)('%s → %s %s', (_name, at, unit, count) => {
    expect(lastLogin(at, now)).toEqual({ unit, count });
  });
});

describe('account badges', () => {
  it.each([
    [{ is_user: true, is_stakeholder: false }, ['user']],
    [{ is_user: false, is_stakeholder: true }, ['stakeholder']],
    [{ is_user: true, is_stakeholder: true }, ['user', 'stakeholder']],
    [{ is_user: false, is_stakeholder: false }, ['unknown']],
  ])('%o → %o', (account, kinds) => {
    expect(accountKinds(account)).toEqual(kinds);
  });
});

describe('which credentials may be deleted (spec section 4)', () => {
  it.each([
    ['password of a user', true, 'password', false],
    ['password of a stakeholder', false, 'password', true],
    ['Google of a user', true, 'oidc', true],
    ['authenticator of a user', true, 'totp', true],
    ['passkey of a user', true, 'webauthn', true],
  ] as const)('%s → %s', (_name, isUser, type, allowed) => {
    expect(canDeleteCredential({ is_user: isUser }, { type })).toBe(allowed);
  });
});

describe('the sign-in lock a row shows (and offers to unlock)', () => {
  const now = new Date('2026-03-01T12:00:00.000Z');
  it.each([
    ['not locked', null, null],
    ['locked for another minute', '2026-03-01T12:01:00.000Z', '2026-03-01T12:01:00.000Z'],
    ['run out since the page loaded', '2026-03-01T11:59:59.000Z', null],
    ['ending right now', '2026-03-01T12:00:00.000Z', null],
    ['unreadable', 'soon', null],
  ])('%s → %s', (_name, lockedUntil, shown) => {
    expect(lockEnd({ locked_until: lockedUntil }, now)).toBe(shown);
  });
});

describe('credential icons', () => {
  it.each([
    [{ type: 'password' }, 'password'],
    [{ type: 'oidc', provider: 'accounts.google.com' }, 'google'],
    [{ type: 'oidc', provider: 'login.microsoftonline.com' }, 'microsoft'],
    [{ type: 'oidc', provider: 'sso.example.com' }, 'oidc'],
    [{ type: 'oidc', provider: null }, 'oidc'],
    [{ type: 'webauthn' }, 'webauthn'],
    [{ type: 'totp' }, 'totp'],
    [{ type: 'saml' }, 'other'],
  ])('%o → %s', (credential, label) => {
    expect(credentialLabel(credential)).toBe(label);
  });
});

describe('initials for an account without a picture', () => {
  it.each([
    ['Anna Svensson', 'a@x.se', 'AS'],
    ['anna maria svensson', 'a@x.se', 'AM'],
    ['Örjan', 'o@x.se', 'Ö'],
    ['  ', 'bo@x.se', 'B'],
  ])('%s → %s', (name, email, initials) => {
    expect(initialsOf(name, email)).toBe(initials);
  });
});

describe('active reset links', () => {
  const links = [
    { email: 'carl@x.se', link: 'c' },
    { email: 'anna@y.se', link: 'a' },
    { email: 'bo@x.se', link: 'b' },
  ];

  it('are sorted by email ascending', () => {
    expect(filterResetLinks(links, '').map((l) => l.email)).toEqual(['anna@y.se', 'bo@x.se', 'carl@x.se']);
  });

  it('filter by email, case-insensitively', () => {
    expect(filterResetLinks(links, ' X.SE ').map((l) => l.email)).toEqual(['bo@x.se', 'carl@x.se']);
    expect(filterResetLinks(links, 'nobody')).toEqual([]);
  });
});

describe('credential names tell two of one kind apart (chip, delete button and confirmation)', () => {
  const totp = (id: string, createdAt: string | null): ConsoleCredential => ({ id, type: 'totp', provider: null, created_at: createdAt });

  it.each([
    ['an authenticator app with when it was added, in UTC', totp('a', '2025-03-01T14:05:59.000+01:00'), 'Authenticator app (added 2025-03-01 13:05 UTC)'],
    ['a named passkey', { id: 'p', type: 'webauthn', provider: null, name: ' Work laptop ', created_at: '2026-01-02T03:04:00Z' }, 'Passkey “Work laptop” (added 2026-01-02 03:04 UTC)'],
    ['a passkey without a name', { id: 'p', type: 'webauthn', provider: null, name: null, created_at: '2026-01-02T03:04:00Z' }, 'Passkey (added 2026-01-02 03:04 UTC)'],
    ['another upstream by its host', { id: 'o', type: 'oidc', provider: 'sso.example.com', created_at: '2026-01-02T03:04:00Z' }, 'sso.example.com (added 2026-01-02 03:04 UTC)'],
    ['a name on another kind is not shown', { id: 't', type: 'totp', provider: null, name: 'x', created_at: null }, 'Authenticator app'],
    ['an answer without the time (or an unreadable one) names the kind only', totp('b', 'soon'), 'Authenticator app'],
  ] as const)('%s', (_name, credential, text) => {
    expect(credentialText(credential, textIn(en))).toBe(text);
  });

  it('in Swedish', () => {
    expect(credentialText(totp('a', '2025-03-01T14:05:00Z'), textIn(sv))).toBe('Autentiseringsapp (tillagd 2025-03-01 14:05 UTC)');
  });

  it('two authenticator apps added at different times get different names', () => {
    const names = [totp('a', '2025-03-01T14:05:00Z'), totp('b', '2025-09-12T08:30:00Z')].map((credential) => credentialText(credential, textIn(en)));
    expect(new Set(names).size).toBe(2);
  });

  it('the chip shows the time (or the passkey name) only beside another credential of its kind', () => {
    const first = totp('a', '2025-03-01T14:05:00Z');
    const second = totp('b', '2025-09-12T08:30:00Z');
    const key: ConsoleCredential = { id: 'k', type: 'webauthn', provider: null, name: 'Phone', created_at: '2025-01-01T00:00:00Z' };
    const otherKey: ConsoleCredential = { id: 'l', type: 'webauthn', provider: null, name: null, created_at: '2025-02-01T00:00:00Z' };
    const password: ConsoleCredential = { id: 'pw', type: 'password', provider: null, created_at: '2024-01-01T00:00:00Z' };
    const all = [password, first, second, key, otherKey];
    expect(all.map((credential) => credentialNote(credential, all))).toEqual([
      null,
      '2025-03-01 14:05 UTC',
      '2025-09-12 08:30 UTC',
      'Phone',
      '2025-02-01 00:00 UTC',
    ]);
    expect(credentialNote(first, [password, first, key])).toBeNull();
  });
});

describe('where the focus goes when a deleted credential takes its button with it', () => {
  it.each([
    ['the next one', ['a', 'b', 'c'], 'b', 'c'],
    ['the one before when it was the last', ['a', 'b', 'c'], 'c', 'b'],
    ['the row title when it was the only one', ['a'], 'a', null],
    ['the first when it was no longer listed', ['a', 'b'], 'x', 'a'],
    ['the row title when none is left', [], 'x', null],
  ] as const)('%s', (_name, deletable, deleted, target) => {
    expect(focusAfterDelete(deletable, deleted)).toBe(target);
  });
});
