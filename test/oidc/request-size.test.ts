import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertClient } from '../../src/oidc/clients.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * What oidc-provider would keep of a request (an authorization's parameters for an hour, a
 * logout's state in a provider session, a pushed request's body) is capped before it gets there:
 * a flood of large anonymous requests cannot fill Redis.
 */
let server: TestServer;
const redirectUri = 'http://127.0.0.1:9/callback';
beforeAll(async () => {
  server = await startTestServer();
  await upsertClient(server.ctx.db, { client_id: 'size-spa', redirect_uris: [redirectUri] });
});
afterAll(async () => {
  await server?.close();
});

const authorize = (extra: Record<string, string>) =>
  fetch(
    `${server.issuer}/authorize?${new URLSearchParams({ client_id: 'size-spa', response_type: 'code', redirect_uri: redirectUri, scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', ...extra })}`,
    { redirect: 'manual' },
  );

describe('request sizes at /oauth2', () => {
  it('refuses an authorization or a logout whose state is longer than 2,048 characters, and takes one at the cap', async () => {
    const long = 'x'.repeat(2049);
    for (const response of [await authorize({ state: long }), await fetch(`${server.issuer}/logout?state=${long}`, { redirect: 'manual' })]) {
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: 'invalid_request', error_description: 'state is too long' });
    }
    expect((await authorize({ state: 'x'.repeat(2048) })).status).toBe(303);
  });

  it("shows a person's browser the refusal as a page in their language, not JSON", async () => {
    const long = 'x'.repeat(2049);
    const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
    const signIn = await fetch(`${server.issuer}/authorize?${new URLSearchParams({ client_id: 'size-spa', state: long })}`, { headers: html, redirect: 'manual' });
    const signOut = await fetch(`${server.issuer}/logout?state=${long}`, { headers: { ...html, 'accept-language': 'sv-SE,sv;q=0.9' }, redirect: 'manual' });
    for (const [response, title, lang] of [[signIn, 'Sign-in could not continue', 'en'], [signOut, 'Utloggningen kunde inte', 'sv']] as const) {
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      const page = await response.text();
      expect(page).toContain(`<html lang="${lang}">`);
      expect(page).toContain(title);
      expect(page).toContain('<code>invalid_request</code> state is too long');
      expect(page).not.toContain(long);
    }
  });

  it('refuses a pushed authorization request over 16 KB (413), and a POST that does not say its length (411)', async () => {
    const body = new URLSearchParams({ client_id: 'size-spa', response_type: 'code', redirect_uri: redirectUri, state: 'x'.repeat(1000), request_uri_note: 'y'.repeat(17 * 1024) }).toString();
    const large = await fetch(`${server.issuer}/par`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    expect(large.status).toBe(413);
    expect(await large.json()).toMatchObject({ error: 'invalid_request' });

    const url = new URL(`${server.issuer}/token`);
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.write('grant_type=refresh_token&');
      req.end('refresh_token=x');
    });
    expect(chunked).toBe(411);
  });
});

describe('the per-address budget of authorizations and logouts', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer({ env: { AUTHORIZE_RATE_LIMIT_PER_MINUTE: '3', TRUST_PROXY: '1' } });
    await upsertClient(limited.ctx.db, { client_id: 'size-spa', redirect_uris: [redirectUri] });
  });
  afterAll(async () => {
    await limited?.close();
  });

  it('answers 429 slow_down with Retry-After past it, per address, authorizations and logouts alike', async () => {
    const from = (ip: string, path: string) => fetch(`${limited.issuer}${path}`, { redirect: 'manual', headers: { 'x-forwarded-for': ip } });
    const authorization = `/authorize?${new URLSearchParams({ client_id: 'size-spa', response_type: 'code', redirect_uri: redirectUri, scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' })}`;
    expect((await from('203.0.113.7', authorization)).status).toBe(303);
    expect((await from('203.0.113.7', '/logout')).status).toBe(200);
    expect((await from('203.0.113.7', authorization)).status).toBe(303);
    for (const path of [authorization, '/logout']) {
      const refused = await from('203.0.113.7', path);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await refused.json()).toEqual({ error: 'slow_down', error_description: 'too many requests, try again later' });
    }
    // Another address has its own; discovery and the keys are not held to it.
    expect((await from('203.0.113.8', authorization)).status).toBe(303);
    expect((await from('203.0.113.7', '/.well-known/openid-configuration')).status).toBe(200);
  });
});
