import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertClient } from '../../src/oidc/clients.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

/**
 * oidc-provider's URLs come from ISSUER, never from the request's Host or X-Forwarded-* headers:
 * a forged host cannot put another origin's token endpoint in the discovery document, and a proxy
 * that does not say https still gets https URLs and secure cookies.
 */
const issuer = 'https://id.example.test/oauth2';
const redirectUri = 'https://rp.example.test/callback';

const forged = [
  { Host: 'evil.example' },
  { Host: 'id.example.test', 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'http' },
  { Host: 'evil.example:8443', 'X-Forwarded-Host': 'evil.example, id.example.test' },
];

/** Every URL a discovery document names. */
function urlsOf(document: Record<string, unknown>): string[] {
  return Object.entries(document)
    .filter(([name, value]) => typeof value === 'string' && (name.endsWith('_endpoint') || name.endsWith('_uri') || name === 'issuer'))
    .map(([, value]) => value as string);
}

function authorizePath(): string {
  const query = new URLSearchParams({
    client_id: 'origin-rp',
    response_type: 'code',
    scope: 'openid',
    redirect_uri: redirectUri,
    code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
    code_challenge_method: 'S256',
  });
  return `/oauth2/authorize?${query}`;
}

describe.each(['0', '1'])('with an https issuer and TRUST_PROXY=%s', (trustProxy) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { ISSUER: issuer, TRUST_PROXY: trustProxy } });
    await upsertClient(t.ctx.db, { client_id: 'origin-rp', redirect_uris: [redirectUri], client_secret: 'origin-rp-secret-0123456789abcdef' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each(forged)('names only the issuer in discovery, whatever the headers say: %j', async (headers) => {
    const res = await t.agent().get('/oauth2/.well-known/openid-configuration').set(headers);
    expect(res.status).toBe(200);
    const urls = urlsOf(res.body as Record<string, unknown>);
    expect(urls.length).toBeGreaterThan(5);
    for (const url of urls) expect(url, url).toMatch(/^https:\/\/id\.example\.test\/oauth2(\/|$)/);
  });

  it('starts an authorization over the proxy\'s plain HTTP with secure, https-only cookies', async () => {
    const res = await t.agent().get(authorizePath()).set('Host', 'evil.example').redirects(0);
    expect(res.status).toBe(303);
    expect(res.headers.location).toMatch(/^\/auth\/interaction\//);
    const cookies = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
    expect(cookies.length).toBeGreaterThan(0);
    for (const line of cookies) expect(line, line).toMatch(/;\s*secure/i);
  });
});
