import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertClient } from '../../src/oidc/clients.ts';
import { pkceAuthorization, type PkceAuthorization } from '../helpers/authorization.ts';
import { BrowserLike } from '../helpers/browser-like.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { codeAt, createTotpAccount, password, type TotpAccount } from './helpers.ts';

const redirectUri = 'http://127.0.0.1:9/callback';
let server: TestServer;
let config: client.Configuration;

beforeAll(async () => {
  server = await startTestServer();
  await upsertClient(server.ctx.db, { client_id: 'rp-totp', redirect_uris: [redirectUri], client_secret: 'rp-totp-secret-0123456789' });
  config = await client.discovery(new URL(server.issuer), 'rp-totp', 'rp-totp-secret-0123456789', undefined, {
    execute: [client.allowInsecureRequests],
  });
});
afterAll(async () => {
  await server?.close();
});

type Authorization = PkceAuthorization;

function authorize(extra: Record<string, string> = {}): Promise<Authorization> {
  return pkceAuthorization(config, { redirect_uri: redirectUri, scope: 'openid email', ...extra }, { nonce: false });
}

type Json = { state: string; session_id: string; redirect_to?: string; detail?: { type: string }[] };

/** Follows the authorization request to /login and passes the password step there. */
async function throughPassword(browser: BrowserLike, account: TotpAccount, authorization: Authorization) {
  const { url: login } = await browser.follow(authorization.url.toString());
  expect(login.pathname).toBe('/login');
  const interaction = login.searchParams.get('interaction')!;
  const started = await browser.json<Json>(`/auth/login/start${login.search}`, { email: account.email });
  const first = await browser.json<Json>('/auth/login/verify-password', { session_id: started.body.session_id, email: account.email, password });
  return { interaction, first: first.body };
}

async function tokensFor(browser: BrowserLike, redirectTo: string, authorization: Authorization) {
  const { url } = await browser.follow(redirectTo);
  expect(url.origin + url.pathname).toBe(redirectUri);
  return client.authorizationCodeGrant(config, url, { pkceCodeVerifier: authorization.verifier, expectedState: authorization.state });
}

describe('MFA cannot be skipped', () => {
  it('after the password step of a TOTP account, later steps, the profile and the interaction finish are all refused', async () => {
    const account = await createTotpAccount(server.ctx);
    const browser = new BrowserLike(server.base);
    const authorization = await authorize();
    const { interaction, first } = await throughPassword(browser, account, authorization);
    expect(first.state).toBe('MfaRequired');
    expect(browser.cookies.has('nyckel_session')).toBe(false);

    for (const [path, body] of [
      ['/auth/login/create-password', { session_id: first.session_id, password: 'Brand-New-Pass-1' }],
      ['/auth/login/skip-create-password', { session_id: first.session_id }],
      ['/auth/login/verify-password', { session_id: first.session_id, email: account.email, password }],
      ['/auth/login/verify-otp', { session_id: first.session_id, email: account.email, otp: '123456' }],
      ['/auth/login/merge-mfa', { session_id: first.session_id, totp_code: await codeAt(server.ctx, account.secrets[0]!) }],
    ] as const) {
      const res = await browser.json<Json>(path, body);
      expect([path, res.status, res.body.detail?.[0]?.type]).toEqual([path, 409, 'invalid_login_session_state']);
    }
    expect(await server.ctx.db('credentials').where({ account_id: account.id, type: 'password' })).toHaveLength(1);

    for (const path of [`/auth/interaction/${interaction}/finish`, `/auth/interaction/${interaction}`]) {
      const res = await browser.request(path);
      expect(res.status).toBe(303);
      expect(new URL(res.headers.get('location')!, server.base).pathname).toBe('/login');
    }
    expect((await browser.request('/auth/available-tenants')).status).toBe(401);
    expect((await browser.request('/oauth2/userinfo')).status).toBe(401);
    expect((await browser.request('/auth/tfa/setup')).status).toBe(401);

    // The login session is still in MfaRequired: the code completes the sign-in, with acr LoA 2.
    const done = await browser.json<Json>('/auth/login/verify-mfa', { session_id: first.session_id, totp_code: await codeAt(server.ctx, account.secrets[0]!) });
    expect(done.body).toMatchObject({ state: 'Done', redirect_to: `/auth/interaction/${interaction}/finish` });
    const claims = (await tokensFor(browser, done.body.redirect_to!, authorization)).claims()!;
    expect(claims.amr).toEqual(['pwd', 'otp', 'mfa']);
    expect(claims.acr).toBe('urn:nyckel:loa:2');
  });

  it('a remembered device skips the code; that sign-in proves only the password (amr pwd, LoA 1)', async () => {
    const account = await createTotpAccount(server.ctx);
    const browser = new BrowserLike(server.base);
    const first = await authorize();
    const step = await throughPassword(browser, account, first);
    const done = await browser.json<Json>('/auth/login/verify-mfa', {
      session_id: step.first.session_id,
      totp_code: await codeAt(server.ctx, account.secrets[0]!),
      remember: true,
    });
    expect(browser.cookies.has('nyckel_device')).toBe(true);
    await tokensFor(browser, done.body.redirect_to!, first);

    // The same browser later, its Nyckel session gone (signed out) but the device cookie kept.
    const later = new BrowserLike(server.base);
    later.cookies.set('nyckel_device', browser.cookies.get('nyckel_device')!);
    const second = await authorize();
    const again = await throughPassword(later, account, second);
    expect(again.first.state).toBe('Done');
    const claims = (await tokensFor(later, again.first.redirect_to!, second)).claims()!;
    expect(claims.amr).toEqual(['pwd']);
    expect(claims.acr).toBe('urn:nyckel:loa:1');
  });
});
