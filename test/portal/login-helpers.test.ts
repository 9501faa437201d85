import { describe, expect, it } from 'vitest';
import type { LoginSessionResponse } from '../../portal/src/api/types.ts';
import { adminLoginUrl, adminSignInUrl, safeAdminReturn } from '../../portal/src/admin/admin-auth.ts';
import { doneTarget, sameOriginPath } from '../../portal/src/login/done-target.ts';
import { asksSecondFactor } from '../../portal/src/login/second-factor.ts';
import { hasPasswordCredential, linkableProviders, providerLinkUrl, providerSignInUrl, signInProviders, singleProvider } from '../../portal/src/login/providers.ts';
import { lockWait } from '../../portal/src/login/lock-wait.ts';
import { backToLoginHref, resetPasswordHref } from '../../portal/src/login/login-query.ts';
import { daysSinceAccess, parseAccessedTenants, recordAccess, sortTenants } from '../../portal/src/login/tenants.ts';

const origin = 'https://id.example.com';

function done(extra: Partial<LoginSessionResponse> = {}): LoginSessionResponse {
  return { state: 'Done', session_id: 's', is_stakeholder: false, is_user: true, available_credentials: [], allow_totp_remember: false, ...extra };
}

describe('where Done goes', () => {
  it.each([
    ['server redirect_to wins', done({ redirect_to: '/oauth2/auth/abc' }), 'client_id=app', '/oauth2/auth/abc'],
    ['absolute same-origin redirect_to', done({ redirect_to: `${origin}/oauth2/auth/x?y=1` }), '', '/oauth2/auth/x?y=1'],
    ['foreign redirect_to is ignored', done({ redirect_to: 'https://evil.example/' }), '', '/login/select-tenant'],
    ['protocol-relative redirect_to is ignored', done({ redirect_to: '//evil.example/x' }), '', '/login/select-tenant'],
    ['client_id → authorize with the query', done(), 'client_id=app&scope=openid', '/oauth2/authorize?client_id=app&scope=openid'],
    // A relying party linked to /login with its whole request: the server knows no interaction, so its tenant selection would lose it.
    [
      'an authorization request without interaction → authorize, before redirect_to',
      done({ redirect_to: '/login/select-tenant' }),
      'client_id=app&response_type=code&scope=openid',
      '/oauth2/authorize?client_id=app&response_type=code&scope=openid',
    ],
    ['an interaction to finish keeps redirect_to', done({ redirect_to: '/auth/interaction/u1/finish' }), 'client_id=app&response_type=code&interaction=u1', '/auth/interaction/u1/finish'],
    // /auth/athena sends /login?client_id=athena: the server's choice stands.
    ['client_id alone keeps redirect_to', done({ redirect_to: '/auth/athena' }), 'client_id=athena', '/auth/athena'],
    ['stakeholder only → sharing portal', done({ is_stakeholder: true, is_user: false }), '', '/auth/athena'],
    ['stakeholder and user → tenants', done({ is_stakeholder: true, is_user: true }), '', '/login/select-tenant'],
    ['user → tenants', done(), 'lang=sv', '/login/select-tenant'],
  ])('%s', (_name, session, search, target) => {
    expect(doneTarget(session, search, origin)).toBe(target);
  });

  it('asks for a second factor only on second_factor=1', () => {
    expect(asksSecondFactor(new URLSearchParams('email=a%40b.se&second_factor=1'))).toBe(true);
    expect(asksSecondFactor(new URLSearchParams('second_factor=0'))).toBe(false);
    expect(asksSecondFactor(new URLSearchParams('email=a%40b.se'))).toBe(false);
  });

  it('rejects non-http URLs', () => {
    expect(sameOriginPath('javascript:alert(1)', origin)).toBeNull();
  });
});

describe('providers', () => {
  const withCredentials = (...credentials: LoginSessionResponse['available_credentials']) => done({ state: 'CredentialsRequired', available_credentials: credentials });

  it.each([
    ['password only', withCredentials({ id: '1', type: 'password' }), [], true, null],
    ['google + password', withCredentials({ id: '1', type: 'oidc', provider: 'accounts.google.com' }, { id: '2', type: 'password' }), ['google'], true, null],
    ['microsoft only', withCredentials({ id: '1', type: 'oidc', provider: 'login.microsoftonline.com' }), ['microsoft'], false, 'microsoft'],
    ['both upstreams', withCredentials({ id: '1', type: 'oidc', provider: 'accounts.google.com' }, { id: '2', type: 'oidc', provider: 'login.microsoftonline.com' }), ['google', 'microsoft'], false, null],
    ['an unknown upstream', withCredentials({ id: '1', type: 'oidc', provider: 'idp.example.org' }), [], false, null],
    ['no list', withCredentials(), [], true, null],
  ])('%s', (_name, session, providers, password, single) => {
    expect(signInProviders(session)).toEqual(providers);
    expect(hasPasswordCredential(session)).toBe(password);
    expect(singleProvider(session)).toBe(single);
  });

  it('links both providers unless the server lists the enabled ones', () => {
    expect(linkableProviders(done())).toEqual(['google', 'microsoft']);
    expect(linkableProviders(done({ enabled_providers: ['microsoft'] }))).toEqual(['microsoft']);
  });

  it('builds the redirect URLs', () => {
    expect(providerSignInUrl('google', 'a b')).toBe('/auth/login/oauth/google?session_id=a%20b');
    expect(providerLinkUrl('microsoft', 's1')).toBe('/auth/login/link/oauth/microsoft?session_id=s1');
  });
});

describe('tenant cards', () => {
  const tenant = (id: string, name: string) => ({ id, name, slug: name.toLowerCase(), url: `https://${id}` });
  const now = new Date('2026-11-22T12:00:00Z');

  it('sorts most recently accessed first, then by name', () => {
    const accessed = { b: '2026-11-20T10:00:00Z', c: '2026-11-21T10:00:00Z' };
    const sorted = sortTenants([tenant('a', 'Zeta'), tenant('b', 'Beta'), tenant('c', 'Gamma'), tenant('d', 'Alpha')], accessed);
    expect(sorted.map((t) => t.id)).toEqual(['c', 'b', 'd', 'a']);
  });

  it.each([
    [undefined, null],
    ['2026-11-22T08:00:00Z', 0],
    ['2026-11-21T11:00:00Z', 1],
    ['2026-11-12T12:00:00Z', 10],
    ['not a date', null],
  ])('last access %s → %s days', (time, days) => {
    expect(daysSinceAccess(time ? { x: time } : {}, 'x', now)).toBe(days);
  });

  it('records access and survives bad storage', () => {
    expect(recordAccess({}, 'x', now)).toEqual({ x: now.toISOString() });
    expect(parseAccessedTenants('not json')).toEqual({});
    expect(parseAccessedTenants('[1]')).toEqual({});
    expect(parseAccessedTenants('{"a":"t","b":3}')).toEqual({ a: 't' });
  });
});

describe('admin sign-in redirect', () => {
  it('carries the URL-encoded path and query', () => {
    expect(adminSignInUrl('/admin/accounts', '?q=ann')).toBe('/admin?from=%2Fadmin%2Faccounts%3Fq%3Dann');
    expect(adminSignInUrl('/admin/invoice', '')).toBe('/admin?from=%2Fadmin%2Finvoice');
  });

  it('says when the refusal was a missing second factor', () => {
    expect(adminSignInUrl('/admin/accounts', '?q=ann', true)).toBe('/admin?from=%2Fadmin%2Faccounts%3Fq%3Dann&second_factor=1');
  });

  it.each([
    ['no operator access: a plain sign-in, back to the console page', '/admin/invoice?x=1', false, '/login?return_to=%2Fadmin%2Finvoice%3Fx%3D1'],
    ['no operator access, from no console path: a bare sign-in', 'https://evil.example', false, '/login'],
    ['no operator access, no from at all', null, false, '/login'],
    ['a second factor: asked for, and back to the console page', '/admin/accounts?q=ann', true, '/login?second_factor=1&return_to=%2Fadmin%2Faccounts%3Fq%3Dann'],
    ['a second factor, from no console path: no return_to', 'https://evil.example', true, '/login?second_factor=1'],
    ['a second factor, from a path /login would not follow', '/admin/x y', true, '/login?second_factor=1'],
  ])('the Sign in link for %s', (_name, from, secondFactor, url) => {
    expect(adminLoginUrl(from, secondFactor)).toBe(url);
  });

  it.each([true, false])('its return_to is one /login follows when done (second factor %s)', (secondFactor) => {
    const query = new URL(adminLoginUrl('/admin/tokens/a%40b.se/42?x=1', secondFactor), origin).searchParams;
    expect(doneTarget(done(), `?${query.toString()}`, origin)).toBe('/admin/tokens/a%40b.se/42?x=1');
  });

  it('returns only to console paths', () => {
    expect(safeAdminReturn('/admin/accounts?q=1')).toBe('/admin/accounts?q=1');
    expect(safeAdminReturn('https://evil.example')).toBeNull();
    expect(safeAdminReturn('//evil.example')).toBeNull();
    expect(safeAdminReturn(null)).toBeNull();
  });
});

describe('how long a lock lasts, in words (rounded up: back when told, never still locked)', () => {
  it.each([
    [1, 'minutes', 1],
    [60, 'minutes', 1],
    [61, 'minutes', 2],
    [14 * 60 + 1, 'minutes', 15],
    [15 * 60, 'minutes', 15],
    [59 * 60, 'minutes', 59],
    [59 * 60 + 1, 'hours', 1],
    [3600, 'hours', 1],
    [3601, 'hours', 2],
    [16 * 3600, 'hours', 16],
    [23 * 3600 + 1, 'days', 1],
    [24 * 3600, 'days', 1],
    [24 * 3600 + 1, 'days', 2],
    [30 * 86_400, 'days', 30],
  ])('%i s → %s: %i', (seconds, unit, count) => {
    expect(lockWait(seconds)).toEqual({ unit, count });
  });

  it.each([undefined, 0, -5, Number.NaN, Number.POSITIVE_INFINITY])('no wait for %s', (seconds) => {
    expect(lockWait(seconds)).toBeNull();
  });
});

describe('the query carried between sign-in and the reset page', () => {
  const search = '?client_id=app&interaction=abc&lang=sv&error=locked&email=pat%40example.com&login_hint=pat%40example.com';
  it('keeps the sign-in it belongs to, and drops what belonged to the one visit (error, email, login_hint)', () => {
    expect(resetPasswordHref(search)).toBe('/login/reset-password?client_id=app&interaction=abc&lang=sv');
    expect(backToLoginHref(search)).toBe('/login?client_id=app&interaction=abc&lang=sv');
    expect(backToLoginHref('?login_hint=pat%40example.com')).toBe('/login');
  });
});
