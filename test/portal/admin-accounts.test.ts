import { describe, expect, it } from 'vitest';
import {
  accountKinds,
  canDeleteCredential,
  credentialLabel,
  filterResetLinks,
  initialsOf,
  lockEnd,
} from '../../portal/src/admin/accounts/account-view.ts';
import { lastLogin } from '../../portal/src/admin/accounts/last-login.ts';

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
