import { describe, expect, it } from 'vitest';
import type { LoginSessionResponse } from '../../portal/src/api/types.ts';
import { credentialButtons, linkableProviders, providerOf, signInProviders, singleProvider } from '../../portal/src/login/providers.ts';

/** The portal's provider helpers with the server's list (GET /auth/providers). */
const configured = [
  { id: 'google' as const, host: '127.0.0.1:4001' },
  { id: 'microsoft' as const, host: 'login.microsoftonline.com' },
];

const at = (...credentials: LoginSessionResponse['available_credentials']): LoginSessionResponse => ({
  state: 'CredentialsRequired',
  session_id: 's',
  is_stakeholder: false,
  is_user: true,
  available_credentials: credentials,
  allow_totp_remember: false,
});

describe('portal providers with the configured list', () => {
  it('names a credential by the configured host only', () => {
    expect(providerOf({ id: '1', type: 'oidc', provider: '127.0.0.1:4001' }, configured)).toBe('google');
    expect(providerOf({ id: '1', type: 'oidc', provider: 'accounts.google.com' }, configured)).toBeNull();
    expect(providerOf({ id: '1', type: 'password' }, configured)).toBeNull();
  });

  it('offers every configured provider on the credentials step, none while loading', () => {
    expect(credentialButtons(configured)).toEqual(['google', 'microsoft']);
    expect(credentialButtons([configured[1]!])).toEqual(['microsoft']);
    expect(credentialButtons(null)).toEqual([]);
    expect(linkableProviders(at(), [])).toEqual([]);
  });

  it.each([
    ['one upstream credential', at({ id: '1', type: 'oidc', provider: '127.0.0.1:4001' }), 'google'],
    ['one upstream credential and a TOTP', at({ id: '1', type: 'oidc', provider: 'login.microsoftonline.com' }, { id: '2', type: 'totp' }), 'microsoft'],
    ['upstream and password', at({ id: '1', type: 'oidc', provider: '127.0.0.1:4001' }, { id: '2', type: 'password' }), null],
    ['upstream and passkey', at({ id: '1', type: 'oidc', provider: '127.0.0.1:4001' }, { id: '2', type: 'webauthn' }), null],
    ['an upstream that is not configured', at({ id: '1', type: 'oidc', provider: 'accounts.google.com' }), null],
  ])('single-provider redirect: %s → %s', (_name, session, expected) => {
    expect(singleProvider(session, configured)).toBe(expected);
  });

  it('lists the account’s linked providers', () => {
    const session = at({ id: '1', type: 'oidc', provider: 'login.microsoftonline.com' }, { id: '2', type: 'password' });
    expect(signInProviders(session, configured)).toEqual(['microsoft']);
  });
});
