import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/app.ts';
import { upsertClient } from '../../src/oidc/clients.ts';
import { jwksRefreshSeconds, retiredKeyGraceSeconds, retiredKeyHintSeconds, rotateSigningKeys } from '../../src/oidc/keys.ts';
import { createAccount, createTenant, grantAccess } from '../fixtures/accounts.ts';
import { pkceAuthorization, type PkceAuthorization } from '../helpers/authorization.ts';
import { BrowserLike } from '../helpers/browser-like.ts';
import { createTestContext, type TestContext } from '../helpers/context.ts';

const password = 'Correct-horse9!';
const redirectUri = 'http://127.0.0.1:9/callback';
const postLogoutUri = 'http://127.0.0.1:9/';
const person = { email: 'keys-user@example.com', name: 'Kim Keys' };

/**
 * The real app on a fixed port over one context (database and store), which can be restarted:
 * an instance loads signing keys at start and re-reads them at most every jwksRefreshSeconds.
 */
interface RestartableServer {
  ctx: TestContext;
  base: string;
  issuer: string;
  restart(): Promise<void>;
  close(): Promise<void>;
}

async function listen(ctx: TestContext, port: number): Promise<Server> {
  const { app } = await createApp(ctx);
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  // Let fetch's keep-alive pool see its sockets closed, or it reuses one and fails the next request.
  await new Promise((resolve) => setTimeout(resolve, 50));
}

async function startRestartableServer(): Promise<RestartableServer> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  const base = `http://127.0.0.1:${port}`;
  const ctx = await createTestContext({ env: { ISSUER: `${base}/oauth2` } });
  let server = await listen(ctx, port);
  return {
    ctx,
    base,
    issuer: `${base}/oauth2`,
    async restart() {
      await stop(server);
      server = await listen(ctx, port);
    },
    async close() {
      await stop(server);
      await ctx.dispose();
    },
  };
}

let nyckel: RestartableServer;

beforeAll(async () => {
  nyckel = await startRestartableServer();
  await createAccount(nyckel.ctx.db, { ...person, password });
  // rp-es takes the default signing algorithm; rp-rs asks for RS256.
  for (const [id, alg] of [['rp-es', undefined], ['rp-rs', 'RS256']] as const) {
    await upsertClient(nyckel.ctx.db, {
      client_id: id,
      redirect_uris: [redirectUri],
      post_logout_redirect_uris: [postLogoutUri],
      client_secret: `${id}-secret-0123456789`,
      ...(alg && { id_token_signed_response_alg: alg }),
    });
  }
});

afterAll(async () => {
  await nyckel?.close();
});

const epoch = () => Math.floor(Date.now() / 1000);

async function discover(clientId: string): Promise<client.Configuration> {
  return client.discovery(new URL(nyckel.issuer), clientId, `${clientId}-secret-0123456789`, undefined, {
    execute: [client.allowInsecureRequests],
  });
}

interface SignIn {
  tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers;
  /** Epoch seconds around the password step, when a sign-in page was shown; null for SSO. */
  signedInBetween: [number, number] | null;
}

/** Drives /login through its HTTP API from the login URL the provider chose; returns the redirect. */
async function signInThroughPortal(browser: BrowserLike, loginUrl: URL, email = person.email): Promise<string> {
  expect(loginUrl.pathname).toBe('/login');
  const start = await browser.json<{ state: string; session_id: string }>(`/auth/login/start${loginUrl.search}`, { email });
  expect(start.body.state).toBe('CredentialsRequired');
  const done = await browser.json<{ state: string; redirect_to: string }>('/auth/login/verify-password', {
    session_id: start.body.session_id,
    email,
    password,
  });
  expect(done.body.state).toBe('Done');
  return done.body.redirect_to;
}

/** One authorization-code round trip: signs in on /login only when the provider sends the browser there. */
async function authorize(
  config: client.Configuration,
  browser: BrowserLike,
  params: Record<string, string> = {},
  email = person.email,
): Promise<SignIn> {
  const { url, verifier, state, nonce } = await pkceAuthorization(config, { redirect_uri: redirectUri, scope: 'openid email profile', ...params });
  let { url: landed } = await browser.follow(url.toString());
  let signedInBetween: [number, number] | null = null;
  if (landed.origin === nyckel.base) {
    const before = epoch();
    const redirect = await signInThroughPortal(browser, landed, email);
    signedInBetween = [before, epoch()];
    landed = (await browser.follow(redirect)).url;
  }
  expect(landed.origin + landed.pathname).toBe(redirectUri);
  const tokens = await client.authorizationCodeGrant(config, landed, {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
  });
  return { tokens, signedInBetween };
}

interface PublicJwk {
  kid: string;
  alg: string;
  kty: string;
  [member: string]: unknown;
}

async function publishedKeys(): Promise<PublicJwk[]> {
  const response = await fetch(`${nyckel.issuer}/jwks`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { keys: PublicJwk[] }).keys;
}

/** Verifies as a relying party does: against the JWKS currently published, fetched afresh. */
function verifyWithJwks(jwt: string, audience: string) {
  return jwtVerify(jwt, createRemoteJWKSet(new URL(`${nyckel.issuer}/jwks`)), { issuer: nyckel.issuer, audience });
}

/** RP-initiated logout as a browser asks for it (Accept: text/html). */
async function logoutWithHint(browser: BrowserLike, idTokenHint: string): Promise<Response> {
  const query = new URLSearchParams({ id_token_hint: idTokenHint, post_logout_redirect_uri: postLogoutUri });
  return browser.request(`/oauth2/logout?${query}`, { headers: { accept: 'text/html' } });
}

/** Filled by the ES256 sign-in, used by the tampering and rotation tests. */
let es256IdToken: string;

describe('signing keys', () => {
  it('stores private keys encrypted and publishes only public keys', async () => {
    await publishedKeys(); // the first start generated the keys
    const rows: { kid: string; private_jwk: string }[] = await nyckel.ctx.db('signing_keys').select('kid', 'private_jwk');
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const row of rows) {
      const jwk = JSON.parse(nyckel.ctx.secretBox.open(row.private_jwk)) as { d: string; kid: string };
      expect(jwk.kid).toBe(row.kid);
      expect(row.private_jwk).toMatch(/^v1\./);
      expect(row.private_jwk).not.toContain('"d"');
      expect(row.private_jwk).not.toContain(jwk.d);
    }
    for (const key of await publishedKeys()) {
      for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(key, key.kid).not.toHaveProperty(secret);
    }
  });

  it('signs ID tokens with ES256 by default and RS256 for a client registered for it', async () => {
    const browser = new BrowserLike(nyckel.base);
    const keys = await publishedKeys();

    const es = await authorize(await discover('rp-es'), browser);
    es256IdToken = es.tokens.id_token!;
    const esHeader = decodeProtectedHeader(es256IdToken);
    expect(esHeader.alg).toBe('ES256');
    expect(esHeader.kid).toBe(keys.find((key) => key.alg === 'ES256')!.kid);
    await expect(verifyWithJwks(es256IdToken, 'rp-es')).resolves.toBeTruthy();

    const rs = await authorize(await discover('rp-rs'), browser);
    const rsHeader = decodeProtectedHeader(rs.tokens.id_token!);
    expect(rsHeader.alg).toBe('RS256');
    expect(rsHeader.kid).toBe(keys.find((key) => key.alg === 'RS256')!.kid);
    await expect(verifyWithJwks(rs.tokens.id_token!, 'rp-rs')).resolves.toBeTruthy();
  });
});

describe('tampered tokens', () => {
  function unsignedCopy(jwt: string): string {
    const [, payload] = jwt.split('.');
    return `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
  }

  /** The genuine claims and kid, signed by a key the provider never published. */
  async function foreignCopy(jwt: string): Promise<string> {
    const { privateKey } = await generateKeyPair('ES256');
    return new SignJWT(decodeJwt(jwt)).setProtectedHeader({ alg: 'ES256', kid: decodeProtectedHeader(jwt).kid! }).sign(privateKey);
  }

  it('rejects an alg "none" ID token and one signed by a foreign key against the JWKS', async () => {
    await expect(verifyWithJwks(unsignedCopy(es256IdToken), 'rp-es')).rejects.toMatchObject({ code: 'ERR_JOSE_NOT_SUPPORTED' });
    await expect(verifyWithJwks(await foreignCopy(es256IdToken), 'rp-es')).rejects.toMatchObject({
      code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    });
  });

  it('refuses them as id_token_hint at /oauth2/logout and keeps the session; the genuine one is offered logout', async () => {
    const browser = new BrowserLike(nyckel.base);
    const config = await discover('rp-es');
    const { tokens } = await authorize(config, browser);

    for (const forged of [unsignedCopy(tokens.id_token!), await foreignCopy(tokens.id_token!)]) {
      const response = await logoutWithHint(browser, forged);
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      const page = await response.text();
      expect(page).toContain('invalid_request');
      expect(page).toContain('could not validate id_token_hint');
      expect(page).not.toContain('name="xsrf"');
    }
    // Still signed in: a silent authorization succeeds without a sign-in page.
    const silent = await authorize(config, browser, { prompt: 'none' });
    expect(silent.signedInBetween).toBeNull();

    const genuine = await logoutWithHint(browser, tokens.id_token!);
    expect(genuine.status).toBe(200);
    expect(await genuine.text()).toMatch(/name="xsrf" value="[^"]+"/);
  });

  it('answers a tampered access token at /oauth2/userinfo with 401 invalid_token', async () => {
    const { tokens } = await authorize(await discover('rp-es'), new BrowserLike(nyckel.base));
    const token = tokens.access_token;
    const middle = Math.floor(token.length / 2);
    const tampered = token.slice(0, middle) + (token[middle] === 'A' ? 'B' : 'A') + token.slice(middle + 1);

    const genuine = await fetch(`${nyckel.issuer}/userinfo`, { headers: { authorization: `Bearer ${token}` } });
    expect(genuine.status).toBe(200);
    const response = await fetch(`${nyckel.issuer}/userinfo`, { headers: { authorization: `Bearer ${tampered}` } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });
});

describe('claims', () => {
  const member = { email: 'tenants-user@example.com', name: 'Tove Tenant' };
  let memberId: string;
  let activeTenant: string;

  beforeAll(async () => {
    const { db } = nyckel.ctx;
    memberId = await createAccount(db, { ...member, password });
    activeTenant = await createTenant(db, 'acme', { name: 'Acme' });
    const revokedAccess = await createTenant(db, 'beta', { name: 'Beta' });
    const deactivated = await createTenant(db, 'gamma', { name: 'Gamma', inactive: true });
    await grantAccess(db, memberId, activeTenant);
    await grantAccess(db, memberId, revokedAccess, false);
    await grantAccess(db, memberId, deactivated);
    // Someone else's access is never released.
    const other = await createAccount(db, { email: 'other@example.com' });
    await grantAccess(db, other, await createTenant(db, 'delta'));
  });

  it('releases only active access to active tenants with the tenants scope, and no tenants without it', async () => {
    const config = await discover('rp-es');
    const browser = new BrowserLike(nyckel.base);
    const withTenants = await authorize(config, browser, { scope: 'openid email profile tenants' }, member.email);
    const sub = withTenants.tokens.claims()!.sub;
    expect(sub).toBe(memberId);
    const userinfo = await client.fetchUserInfo(config, withTenants.tokens.access_token, sub);
    expect(userinfo).toMatchObject({ sub, email: member.email, email_verified: true, name: member.name });
    // Never chosen in the profile: omitted, not null (OpenID Connect Core 5.3.2).
    expect(userinfo).not.toHaveProperty('locale');
    expect(userinfo.tenants).toEqual([{ id: activeTenant, slug: 'acme', name: 'Acme', role: 'user' }]);

    const without = await authorize(config, browser, { scope: 'openid email profile' }, member.email);
    expect(without.signedInBetween).toBeNull();
    const plain = await client.fetchUserInfo(config, without.tokens.access_token, sub);
    expect(plain).toMatchObject({ sub, email: member.email, email_verified: true, name: member.name });
    expect(plain).not.toHaveProperty('tenants');

    const openidOnly = await authorize(config, browser, { scope: 'openid' }, member.email);
    const bare = await client.fetchUserInfo(config, openidOnly.tokens.access_token, sub);
    expect(Object.keys(bare)).toEqual(['sub']);
  });

  it('puts amr, acr and the exact auth_time of the password sign-in into the ID token', async () => {
    const { tokens, signedInBetween } = await authorize(await discover('rp-es'), new BrowserLike(nyckel.base));
    const claims = tokens.claims()!;
    expect(claims.amr).toEqual(['pwd']);
    expect(claims.acr).toBe('urn:nyckel:loa:1');
    expect(signedInBetween).not.toBeNull();
    expect(claims.auth_time).toBeGreaterThanOrEqual(signedInBetween![0]);
    expect(claims.auth_time).toBeLessThanOrEqual(signedInBetween![1]);
  });

  it('honours max_age: an older sign-in is reused within it and a fresh one is demanded beyond it', async () => {
    const config = await discover('rp-es');
    const browser = new BrowserLike(nyckel.base);
    const first = await authorize(config, browser);
    const firstAuthTime = first.tokens.claims()!.auth_time!;
    await new Promise((resolve) => setTimeout(resolve, 2100));

    const within = await authorize(config, browser, { max_age: '3600' });
    expect(within.signedInBetween).toBeNull();
    expect(within.tokens.claims()!.auth_time).toBe(firstAuthTime);

    const beyond = await authorize(config, browser, { max_age: '1' });
    expect(beyond.signedInBetween).not.toBeNull();
    expect(beyond.tokens.claims()!.auth_time).toBeGreaterThanOrEqual(beyond.signedInBetween![0]);
    expect(beyond.tokens.claims()!.auth_time).toBeGreaterThan(firstAuthTime);
  });

  it('treats max_age=0 as prompt=login, however recent the sign-in (even in the same second)', async () => {
    const config = await discover('rp-es');
    const browser = new BrowserLike(nyckel.base);
    const first = await authorize(config, browser);
    const again = await authorize(config, browser, { max_age: '0' });
    expect(again.signedInBetween).not.toBeNull();
    expect(again.tokens.claims()!.auth_time).toBeGreaterThanOrEqual(first.tokens.claims()!.auth_time!);
    expect(again.tokens.claims()!.auth_time).toBeGreaterThanOrEqual(again.signedInBetween![0]);
  });
});

describe('key rotation', () => {
  let before: PublicJwk[];
  let rotated: string[];

  it('publishes the new key first after a restart, keeps the old one, and signs new ID tokens with it', async () => {
    before = await publishedKeys();
    const oldEs = before.find((key) => key.alg === 'ES256')!.kid;
    expect(decodeProtectedHeader(es256IdToken).kid).toBe(oldEs);

    ({ kids: rotated } = await rotateSigningKeys(nyckel.ctx, { publishSeconds: 0 }));
    await nyckel.restart();

    const keys = await publishedKeys();
    expect(keys[0]).toMatchObject({ kid: rotated[0], alg: 'ES256' });
    expect(keys.map((key) => key.kid)).toEqual(expect.arrayContaining([...rotated, ...before.map((key) => key.kid)]));
    await expect(verifyWithJwks(es256IdToken, 'rp-es')).resolves.toBeTruthy();

    const fresh = await authorize(await discover('rp-es'), new BrowserLike(nyckel.base));
    expect(fresh.signedInBetween).not.toBeNull();
    expect(decodeProtectedHeader(fresh.tokens.id_token!)).toMatchObject({ alg: 'ES256', kid: rotated[0] });
    await expect(verifyWithJwks(fresh.tokens.id_token!, 'rp-es')).resolves.toBeTruthy();

    // The provider itself still accepts the old key's token as id_token_hint.
    expect((await logoutWithHint(new BrowserLike(nyckel.base), es256IdToken)).status).toBe(200);
  });

  it('drops a retired key from the JWKS once its grace period is over, not before', async () => {
    const oldEs = before.find((key) => key.alg === 'ES256')!.kid;
    const oldRs = before.find((key) => key.alg === 'RS256')!.kid;
    const ago = (seconds: number) => new Date(Date.now() - seconds * 1000);
    await nyckel.ctx.db('signing_keys').where({ kid: oldEs }).update({ retired_at: ago(retiredKeyGraceSeconds + 60) });
    await nyckel.ctx.db('signing_keys').where({ kid: oldRs }).update({ retired_at: ago(retiredKeyGraceSeconds - 60) });
    await nyckel.restart();

    const kids = (await publishedKeys()).map((key) => key.kid);
    expect(kids).not.toContain(oldEs);
    expect(kids).toContain(oldRs);
    expect(kids).toEqual(expect.arrayContaining(rotated));
    await expect(verifyWithJwks(es256IdToken, 'rp-es')).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });

    // Its ID tokens still come back as id_token_hint while a session they were issued in may
    // live: the logout is offered, not an error page. Past that, the hint is refused.
    expect((await logoutWithHint(new BrowserLike(nyckel.base), es256IdToken)).status).toBe(200);
    await nyckel.ctx.db('signing_keys').where({ kid: oldEs }).update({ retired_at: ago(retiredKeyHintSeconds + 60) });
    await nyckel.restart();
    expect((await logoutWithHint(new BrowserLike(nyckel.base), es256IdToken)).status).toBe(400);
  });

  it('is taken up by a running instance within a minute, without a restart: it signs with the new key and accepts it as id_token_hint', async () => {
    const signedBefore = (await authorize(await discover('rp-es'), new BrowserLike(nyckel.base))).tokens.id_token!;
    const { kids } = await rotateSigningKeys(nyckel.ctx, { publishSeconds: 0 });
    expect(decodeProtectedHeader(signedBefore).kid).not.toBe(kids[0]);

    // The instance re-reads its keys on a request once jwksRefreshSeconds have passed, without
    // holding that request up; the sign-ins after it get the new key.
    nyckel.ctx.advance((jwksRefreshSeconds + 1) * 1000);
    let signedAfter = '';
    await vi.waitFor(
      async () => {
        signedAfter = (await authorize(await discover('rp-es'), new BrowserLike(nyckel.base))).tokens.id_token!;
        expect(decodeProtectedHeader(signedAfter)).toMatchObject({ alg: 'ES256', kid: kids[0] });
      },
      { timeout: 10_000, interval: 100 },
    );
    await expect(verifyWithJwks(signedAfter, 'rp-es')).resolves.toBeTruthy();
    await expect(verifyWithJwks(signedBefore, 'rp-es')).resolves.toBeTruthy();
    expect((await logoutWithHint(new BrowserLike(nyckel.base), signedAfter)).status).toBe(200);
    expect((await logoutWithHint(new BrowserLike(nyckel.base), signedBefore)).status).toBe(200);
  });
});
