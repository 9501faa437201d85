import http from 'node:http';
import * as client from 'openid-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createResetLink } from '../../src/login/reset.service.ts';
import { upsertClient } from '../../src/oidc/clients.ts';
import { StoreUnavailableError } from '../../src/store/store.ts';
import { createAccount } from '../fixtures/accounts.ts';
import { pkceAuthorization, type PkceAuthorization } from '../helpers/authorization.ts';
import { BrowserLike } from '../helpers/browser-like.ts';
import { restoreSignInBudgets } from '../helpers/ip-budget.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { codeAt } from '../totp/helpers.ts';
import { withMinuteWindowLeft } from '../helpers/minute-window.ts';

const password = 'Correct-horse9!';
const redirectUri = 'http://127.0.0.1:9/callback';

let server: TestServer;
let resetAccountId: string;

beforeAll(async () => {
  server = await startTestServer();
  await createAccount(server.ctx.db, { email: 'rp-user@example.com', password, name: 'Rita Relying' });
  await createAccount(server.ctx.db, { email: 'rp-other@example.com', password, name: 'Bob Other' });
  resetAccountId = await createAccount(server.ctx.db, { email: 'rp-reset@example.com', password, name: 'Rosa Reset' });
  for (const id of ['rp-one', 'rp-two']) {
    await upsertClient(server.ctx.db, {
      client_id: id,
      redirect_uris: [redirectUri],
      post_logout_redirect_uris: ['http://127.0.0.1:9/'],
      client_secret: `${id}-secret-0123456789`,
    });
  }
});

afterAll(async () => {
  await server?.close();
});

async function discover(clientId: string): Promise<client.Configuration> {
  return client.discovery(new URL(server.issuer), clientId, `${clientId}-secret-0123456789`, undefined, {
    execute: [client.allowInsecureRequests],
  });
}

type Authorization = PkceAuthorization;

function authorizationRequest(config: client.Configuration, extra: Record<string, string> = {}): Promise<Authorization> {
  return pkceAuthorization(config, { redirect_uri: redirectUri, scope: 'openid email profile offline_access', prompt: 'consent', ...extra });
}

/** The token request for a callback URL, with every check openid-client makes of the answer. */
function exchange(config: client.Configuration, callback: URL, authorization: Authorization) {
  return client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: authorization.verifier,
    expectedState: authorization.state,
    expectedNonce: authorization.nonce,
  });
}

/** Drives /login through its HTTP API, as the portal does, from the login URL the provider chose. */
async function signInThroughPortal(
  browser: BrowserLike,
  loginUrl: URL,
  { email = 'rp-user@example.com', remember = false }: { email?: string; remember?: boolean } = {},
): Promise<string> {
  expect(loginUrl.pathname).toBe('/login');
  const query = loginUrl.search;
  const start = await browser.json<{ state: string; session_id: string }>(`/auth/login/start${query}`, { email });
  expect(start.body.state).toBe('CredentialsRequired');
  const done = await browser.json<{ state: string; redirect_to: string }>('/auth/login/verify-password', {
    session_id: start.body.session_id,
    email,
    password,
    remember,
  });
  expect(done.body.state).toBe('Done');
  return done.body.redirect_to;
}

/**
 * Follows the browser through an interaction that finished for another account than the provider
 * session's: oidc-provider ends that session with a form it posts by itself, then resumes.
 */
async function followSwitching(browser: BrowserLike, path: string): Promise<URL> {
  const { url, posted } = await browser.followThroughForms(path);
  expect(posted).toEqual(['/oauth2/logout/confirm']);
  return url;
}

/** The redirect back to the client of a request answered without any page: the code or the error. */
async function browserCode(browser: BrowserLike, authorization: Authorization): Promise<URL> {
  const { url } = await browser.follow(authorization.url.toString());
  expect(url.origin + url.pathname).toBe(redirectUri);
  return url;
}

async function codeFrom(browser: BrowserLike, authorization: Authorization): Promise<URL> {
  let { url } = await browser.follow(authorization.url.toString());
  if (url.origin === server.base) url = (await browser.follow(await signInThroughPortal(browser, url))).url;
  expect(url.origin + url.pathname).toBe(redirectUri);
  return url;
}

describe('a relying party signs a person in with openid-client', () => {
  // Every sign-in here comes from loopback, most of them Rita's: the file's journeys together
  // outrun the sign-in calls' budgets (per address and per email), which test/login covers.
  beforeEach(() => restoreSignInBudgets(server.ctx, ['rp-user@example.com', 'rp-other@example.com']));

  it('runs the code flow with PKCE, validates the ID token, calls userinfo, refreshes, introspects, revokes', async () => {
    const config = await discover('rp-one');
    const browser = new BrowserLike(server.base);
    const authorization = await authorizationRequest(config);
    const callback = await codeFrom(browser, authorization);

    const tokens = await exchange(config, callback, authorization);
    const claims = tokens.claims()!;
    expect(claims.iss).toBe(server.issuer);
    expect(claims.aud).toBe('rp-one');
    expect(claims.amr).toEqual(['pwd']);
    expect(claims.email).toBe('rp-user@example.com');
    expect(claims.acr).toBe('urn:nyckel:loa:1');
    expect(typeof claims.auth_time).toBe('number');

    const userinfo = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
    expect(userinfo).toMatchObject({ sub: claims.sub, email: 'rp-user@example.com', name: 'Rita Relying' });

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);

    const active = await client.tokenIntrospection(config, refreshed.access_token);
    expect(active).toMatchObject({ active: true, sub: claims.sub, client_id: 'rp-one' });

    await client.tokenRevocation(config, refreshed.access_token);
    expect(await client.tokenIntrospection(config, refreshed.access_token)).toMatchObject({ active: false });
  });

  it("tells a client nothing about another client's tokens at introspection", async () => {
    const one = await discover('rp-one');
    const authorization = await authorizationRequest(one);
    const tokens = await exchange(one, await codeFrom(new BrowserLike(server.base), authorization), authorization);
    const two = await discover('rp-two');
    expect(await client.tokenIntrospection(two, tokens.access_token)).toEqual({ active: false });
    expect(await client.tokenIntrospection(two, tokens.refresh_token!)).toEqual({ active: false });
    expect(await client.tokenIntrospection(one, tokens.access_token)).toMatchObject({ active: true, client_id: 'rp-one' });
  });

  it('refuses a request with no scope Nyckel knows (invalid_scope, RFC 6749 section 3.3) before any sign-in page; unknown scopes beside a known one are dropped', async () => {
    const one = await discover('rp-one');
    for (const [scope, prompt] of [['admin', undefined], ['admin', 'none'], ['', undefined]] as const) {
      // No nonce: without openid oidc-provider refuses one (invalid_request).
      const authorization = await pkceAuthorization(one, { redirect_uri: redirectUri, scope, ...(prompt && { prompt }) }, { nonce: false });
      // A browser signed in nowhere: the answer comes before /login.
      const { url } = await new BrowserLike(server.base).follow(authorization.url.toString());
      expect(url.origin + url.pathname).toBe(redirectUri);
      expect([url.searchParams.get('error'), url.searchParams.get('error_description'), url.searchParams.get('state')]).toEqual([
        'invalid_scope',
        'none of the requested scopes is supported',
        authorization.state,
      ]);
    }
    const mixed = await authorizationRequest(one, { scope: 'openid admin' });
    const tokens = await exchange(one, await codeFrom(new BrowserLike(server.base), mixed), mixed);
    expect(tokens.scope).toBe('openid');
  });

  it('answers a JWT (the ID token, a forged one) at introspection as inactive, as RFC 7662 has it for any token it does not know', async () => {
    const one = await discover('rp-one');
    const authorization = await authorizationRequest(one);
    const tokens = await exchange(one, await codeFrom(new BrowserLike(server.base), authorization), authorization);
    const forged = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"sub":"x"}').toString('base64url')}.`;
    for (const token of [tokens.id_token!, forged]) expect(await client.tokenIntrospection(one, token)).toEqual({ active: false });
    // The client must still authenticate: an inactive answer is not a way around it.
    const anonymous = await fetch(`${server.issuer}/introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.id_token!, client_id: 'rp-one' }),
    });
    expect([anonymous.status, ((await anonymous.json()) as { error: string }).error]).toEqual([401, 'invalid_client']);
  });

  it("leaves another client's tokens alone at revocation, answering as for an unknown token", async () => {
    const one = await discover('rp-one');
    const authorization = await authorizationRequest(one);
    const tokens = await exchange(one, await codeFrom(new BrowserLike(server.base), authorization), authorization);
    const revoke = async (clientId: string, token: string) => {
      const res = await fetch(`${server.issuer}/revoke`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${clientId}:${clientId}-secret-0123456789`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ token }),
      });
      return { status: res.status, body: await res.text() };
    };
    const unknown = await revoke('rp-two', 'not-a-token');
    expect(unknown).toEqual({ status: 200, body: '' });
    expect(await revoke('rp-two', tokens.access_token)).toEqual(unknown);
    expect(await revoke('rp-two', tokens.refresh_token!)).toEqual(unknown);
    expect(await client.tokenIntrospection(one, tokens.access_token)).toMatchObject({ active: true, client_id: 'rp-one' });
    expect(await client.tokenIntrospection(one, tokens.refresh_token!)).toMatchObject({ active: true, client_id: 'rp-one' });
    await expect(client.fetchUserInfo(one, tokens.access_token, tokens.claims()!.sub)).resolves.toMatchObject({ email: 'rp-user@example.com' });

    // Its own client still revokes them (the refresh token with every token of its grant).
    expect(await revoke('rp-one', tokens.refresh_token!)).toEqual({ status: 200, body: '' });
    expect(await client.tokenIntrospection(one, tokens.refresh_token!)).toEqual({ active: false });
    expect(await client.tokenIntrospection(one, tokens.access_token)).toEqual({ active: false });
  });

  it('revokes the whole grant when a rotated refresh token is replayed', async () => {
    const config = await discover('rp-one');
    const browser = new BrowserLike(server.base);
    const authorization = await authorizationRequest(config);
    const tokens = await exchange(config, await codeFrom(browser, authorization), authorization);
    const rotated = await client.refreshTokenGrant(config, tokens.refresh_token!);
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(client.refreshTokenGrant(config, rotated.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses a second use of an authorization code and a wrong PKCE verifier', async () => {
    const config = await discover('rp-one');
    const browser = new BrowserLike(server.base);
    const first = await authorizationRequest(config);
    const callback = await codeFrom(browser, first);
    const checks = { pkceCodeVerifier: first.verifier, expectedState: first.state, expectedNonce: first.nonce };
    const tokens = await client.authorizationCodeGrant(config, callback, checks);
    await expect(client.authorizationCodeGrant(config, callback, checks)).rejects.toMatchObject({ error: 'invalid_grant' });
    // The replay revoked what the code had issued.
    expect(await client.tokenIntrospection(config, tokens.access_token)).toMatchObject({ active: false });

    const second = await authorizationRequest(config);
    const secondCallback = await codeFrom(browser, second);
    await expect(
      client.authorizationCodeGrant(config, secondCallback, {
        pkceCodeVerifier: client.randomPKCECodeVerifier(),
        expectedState: second.state,
        expectedNonce: second.nonce,
      }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('lets exactly one of two simultaneous exchanges of a code win, and revokes what the winner got', async () => {
    const config = await discover('rp-one');
    const browser = new BrowserLike(server.base);
    const authorization = await authorizationRequest(config);
    const callback = await codeFrom(browser, authorization);
    const checks = { pkceCodeVerifier: authorization.verifier, expectedState: authorization.state, expectedNonce: authorization.nonce };
    const results = await Promise.allSettled([
      client.authorizationCodeGrant(config, callback, checks),
      client.authorizationCodeGrant(config, callback, checks),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r) => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect((lost[0] as PromiseRejectedResult).reason).toMatchObject({ error: 'invalid_grant' });
    // A replay, even a simultaneous one, ends the grant: the winner's refresh token is dead.
    const tokens = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof client.authorizationCodeGrant>>>).value;
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('lets exactly one of two simultaneous refreshes with one refresh token win', async () => {
    const config = await discover('rp-one');
    const browser = new BrowserLike(server.base);
    const authorization = await authorizationRequest(config);
    const tokens = await exchange(config, await codeFrom(browser, authorization), authorization);
    const results = await Promise.allSettled([
      client.refreshTokenGrant(config, tokens.refresh_token!),
      client.refreshTokenGrant(config, tokens.refresh_token!),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason).toMatchObject({ error: 'invalid_grant' });
  });

  it('lets exactly one of many simultaneous uses of a code or a refresh token win (the first loser revoking the grant must not free the use for a third)', async () => {
    const config = await discover('rp-one');
    const browser = new BrowserLike(server.base);
    const many = 8;
    for (let trial = 0; trial < 4; trial += 1) {
      const authorization = await authorizationRequest(config);
      const callback = await codeFrom(browser, authorization);
      const checks = { pkceCodeVerifier: authorization.verifier, expectedState: authorization.state, expectedNonce: authorization.nonce };
      const exchanges = await Promise.allSettled(Array.from({ length: many }, () => client.authorizationCodeGrant(config, callback, checks)));
      expect(exchanges.filter((r) => r.status === 'fulfilled'), `code, trial ${trial}`).toHaveLength(1);

      const fresh = await authorizationRequest(config);
      const tokens = await exchange(config, await codeFrom(browser, fresh), fresh);
      const refreshes = await Promise.allSettled(Array.from({ length: many }, () => client.refreshTokenGrant(config, tokens.refresh_token!)));
      expect(refreshes.filter((r) => r.status === 'fulfilled'), `refresh token, trial ${trial}`).toHaveLength(1);
    }
  });

  it('answers 503 when the store fails as a code is consumed, writes nothing, and redeems the same code afterwards', async () => {
    const config = await discover('rp-one');
    const browser = new BrowserLike(server.base);
    const authorization = await authorizationRequest(config);
    const callback = await codeFrom(browser, authorization);
    const store = server.ctx.store;
    const claimAndWrite = store.claimAndWrite.bind(store);
    const before = (await store.scan('oidc:')).length;
    // The store goes away exactly at the step that consumes the code and stores the new tokens.
    store.claimAndWrite = () => Promise.reject(new StoreUnavailableError('store down (test)'));
    try {
      const response = await fetch(`${server.issuer}/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from('rp-one:rp-one-secret-0123456789').toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: callback.searchParams.get('code')!, redirect_uri: redirectUri, code_verifier: authorization.verifier }),
      });
      expect(response.status).toBe(503);
      const body = (await response.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ error: 'temporarily_unavailable' });
      expect(body).not.toHaveProperty('access_token');
    } finally {
      store.claimAndWrite = claimAndWrite;
    }
    expect((await store.scan('oidc:')).length).toBe(before);
    // Nothing was consumed: the client's retry succeeds.
    const tokens = await exchange(config, callback, authorization);
    expect(tokens.claims()!.email).toBe('rp-user@example.com');
  });

  it('answers the token endpoint with Cache-Control: no-store and Pragma: no-cache (RFC 6749 5.1, 5.2), tokens and errors alike', async () => {
    const config = await discover('rp-one');
    const authorization = await authorizationRequest(config);
    const callback = await codeFrom(new BrowserLike(server.base), authorization);
    const redeem = (code: string) =>
      fetch(`${server.issuer}/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from('rp-one:rp-one-secret-0123456789').toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: authorization.verifier }),
      });
    const tokens = await redeem(callback.searchParams.get('code')!);
    const refused = await redeem('not-a-code');
    expect([tokens.status, refused.status]).toEqual([200, 400]);
    for (const response of [tokens, refused]) {
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('pragma')).toBe('no-cache');
    }
  });

  it('signs in to a second client without a login page (single sign-on)', async () => {
    const browser = new BrowserLike(server.base);
    const one = await discover('rp-one');
    await codeFrom(browser, await authorizationRequest(one));

    const two = await discover('rp-two');
    const authorization = await authorizationRequest(two);
    const { url } = await browser.follow(authorization.url.toString());
    expect(url.origin + url.pathname).toBe(redirectUri);
    const tokens = await exchange(two, url, authorization);
    expect(tokens.claims()!.aud).toBe('rp-two');
  });

  it('answers prompt=none without a session with login_required', async () => {
    const config = await discover('rp-one');
    const browser = new BrowserLike(server.base);
    const authorization = await authorizationRequest(config, { prompt: 'none', scope: 'openid' });
    const { url } = await browser.follow(authorization.url.toString());
    expect(url.origin + url.pathname).toBe(redirectUri);
    expect(url.searchParams.get('error')).toBe('login_required');
  });

  it('answers prompt=none with a code for a browser signed in at /login without an application (the tenant picker)', async () => {
    const [one, two] = [await discover('rp-one'), await discover('rp-two')];
    const browser = new BrowserLike(server.base);
    const before = Math.floor(Date.now() / 1000);
    await signInThroughPortal(browser, new URL('/login', server.base));
    expect(browser.cookies.get('nyckel_op_session') ?? '').toBe('');

    // The first application, then another with more scopes: neither was ever granted anything.
    const silent = await authorizationRequest(one, { prompt: 'none', scope: 'openid email' });
    const tokens = await exchange(one, await codeFrom(browser, silent), silent);
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({ email: 'rp-user@example.com', amr: ['pwd'], acr: 'urn:nyckel:loa:1' });
    expect(claims.auth_time).toBeGreaterThanOrEqual(before);
    const more = await authorizationRequest(two, { prompt: 'none', scope: 'openid email profile' });
    const { claims: claimsTwo } = await exchange(two, await codeFrom(browser, more), more);
    expect(claimsTwo()).toMatchObject({ sub: claims.sub, name: 'Rita Relying', auth_time: claims.auth_time });

    // The provider session is the Nyckel session's: once that ends, silence gets login_required.
    expect((await browser.json('/api/accounts/sessions/sign-out', {})).status).toBe(200);
    const after = await authorizationRequest(one, { prompt: 'none', scope: 'openid' });
    const { url } = await browser.follow(after.url.toString());
    expect(url.searchParams.get('error')).toBe('login_required');
  });

  it('keeps single sign-on when turning on an authenticator app renews the Nyckel session; a copy of the old cookie is refused', async () => {
    await createAccount(server.ctx.db, { email: 'rp-renew@example.com', password, name: 'Rut Renew' });
    const [one, two] = [await discover('rp-one'), await discover('rp-two')];
    const browser = new BrowserLike(server.base);
    const first = await authorizationRequest(one, { scope: 'openid email' });
    let { url } = await browser.follow(first.url.toString());
    ({ url } = await browser.follow(await signInThroughPortal(browser, url, { email: 'rp-renew@example.com' })));
    const { claims } = await exchange(one, url, first);
    const copied = new BrowserLike(server.base);
    copied.cookies.set('nyckel_session', browser.cookies.get('nyckel_session')!);

    const setup = await browser.request('/auth/tfa/setup');
    expect(setup.status).toBe(200);
    const { secret } = (await setup.json()) as { secret: string };
    expect((await browser.json('/auth/tfa/activate', { totp_code: await codeAt(server.ctx, secret) })).status).toBe(200);
    expect(browser.cookies.get('nyckel_session')).not.toBe(copied.cookies.get('nyckel_session'));

    // The copy taken before the second factor gains nothing: it is signed out.
    expect((await copied.request('/auth/tfa/devices')).status).toBe(401);
    expect((await copied.request('/auth/login/ping')).status).toBe(200);
    expect(await (await copied.request('/auth/login/ping')).json()).toMatchObject({ email: null });

    // The browser itself goes on: silently at the application it signed in to, and at another,
    // also where only the provider's cookies are sent (a cross-site POST, an iframe's renew: the
    // Nyckel cookie is SameSite=Lax), as the provider session moved to the new id.
    expect((await browser.request('/auth/tfa/devices')).status).toBe(200);
    const crossSite = new BrowserLike(server.base);
    for (const [name, value] of browser.cookies) if (name !== 'nyckel_session') crossSite.cookies.set(name, value);
    const renew = await authorizationRequest(one, { prompt: 'none', scope: 'openid email' });
    expect((await exchange(one, await browserCode(crossSite, renew), renew)).claims()).toMatchObject({ sub: claims()!.sub });
    // Each says what the session proved now, the authenticator app included, since the same sign-in.
    expect(claims()).toMatchObject({ acr: 'urn:nyckel:loa:1', amr: ['pwd'] });
    for (const config of [one, two]) {
      const silent = await authorizationRequest(config, { prompt: 'none', scope: 'openid email' });
      const tokens = await exchange(config, await browserCode(browser, silent), silent);
      expect(tokens.claims()).toMatchObject({ sub: claims()!.sub, email: 'rp-renew@example.com', auth_time: claims()!.auth_time, acr: 'urn:nyckel:loa:2' });
      expect(tokens.claims()!.amr).toEqual(expect.arrayContaining(['pwd', 'otp', 'mfa']));
    }
  });

  it('signs in at most 30 provider sessions a minute silently for one Nyckel session; past that, login_required', async () => {
    await createAccount(server.ctx.db, { email: 'rp-silent-budget@example.com', password });
    const config = await discover('rp-one');
    const browser = new BrowserLike(server.base);
    await signInThroughPortal(browser, new URL('/login', server.base), { email: 'rp-silent-budget@example.com' });
    const renew = async () => {
      // A frame where the provider cookie never arrives: every renew comes without it.
      for (const name of [...browser.cookies.keys()]) if (name.startsWith('nyckel_op_session')) browser.cookies.delete(name);
      const silent = await authorizationRequest(config, { prompt: 'none', scope: 'openid' });
      return (await browser.follow(silent.url.toString())).url;
    };
    for (let i = 0; i < 30; i += 1) expect((await renew()).searchParams.get('code')).toBeTruthy();
    expect((await renew()).searchParams.get('error')).toBe('login_required');
  });

  it('signs no provider session in for a silent request that names an unknown client or an unregistered redirect URI', async () => {
    const config = await discover('rp-one');
    const browser = new BrowserLike(server.base);
    await signInThroughPortal(browser, new URL('/login', server.base));
    const valid = await authorizationRequest(config, { prompt: 'none', scope: 'openid' });
    const unknownClient = new URL(valid.url);
    unknownClient.searchParams.set('client_id', 'no-such-client');
    const strangerRedirect = new URL(valid.url);
    strangerRedirect.searchParams.set('redirect_uri', 'https://attacker.example/callback');
    for (const url of [unknownClient, strangerRedirect]) {
      const answer = await browser.request(url.pathname + url.search);
      expect(answer.status).toBe(400);
      expect(browser.cookies.get('nyckel_op_session') ?? '').toBe('');
    }
    // The same browser's valid request is signed in silently.
    expect((await browserCode(browser, valid)).searchParams.get('code')).toBeTruthy();
    expect(browser.cookies.get('nyckel_op_session')).toBeTruthy();
  });

  it('gives the silently signed-in provider session a new id: a provider cookie planted beforehand opens nothing', async () => {
    const config = await discover('rp-one');
    const attacker = new BrowserLike(server.base);
    await attacker.request('/oauth2/logout');
    const planted = ['nyckel_op_session', 'nyckel_op_session.sig'].map((name) => [name, attacker.cookies.get(name)] as const);
    expect(planted.every(([, value]) => value)).toBe(true);

    const victim = new BrowserLike(server.base);
    for (const [name, value] of planted) victim.cookies.set(name, value!);
    await signInThroughPortal(victim, new URL('/login', server.base));
    const silent = await authorizationRequest(config, { prompt: 'none', scope: 'openid' });
    expect((await browserCode(victim, silent)).searchParams.get('code')).toBeTruthy();
    expect(victim.cookies.get('nyckel_op_session')).not.toBe(planted[0]![1]);

    const stolen = await authorizationRequest(config, { prompt: 'none', scope: 'openid' });
    const { url } = await attacker.follow(stolen.url.toString());
    expect(url.searchParams.get('code')).toBeNull();
    expect(url.searchParams.get('error')).toBe('login_required');
  });

  it('answers prompt=none after the same person signed in at /login again (a re-sign-in the console or the profile asked for)', async () => {
    const config = await discover('rp-one');
    const browser = new BrowserLike(server.base);
    const first = await authorizationRequest(config, { scope: 'openid' });
    await exchange(config, await codeFrom(browser, first), first);
    await signInThroughPortal(browser, new URL('/login', server.base));
    const silent = await authorizationRequest(config, { prompt: 'none', scope: 'openid' });
    const tokens = await exchange(config, await browserCode(browser, silent), silent);
    expect(tokens.claims()!.email).toBeUndefined();
    expect(tokens.claims()!.sub).toBeTruthy();

    // Another account signed in at /login is never switched to silently.
    await signInThroughPortal(browser, new URL('/login', server.base), { email: 'rp-other@example.com' });
    const other = await authorizationRequest(config, { prompt: 'none', scope: 'openid' });
    expect((await browser.follow(other.url.toString())).url.searchParams.get('error')).toBe('login_required');
  });

  it('keeps max_age and id_token_hint for a silent request from a browser signed in at /login', async () => {
    const config = await discover('rp-one');
    const browser = new BrowserLike(server.base);
    await signInThroughPortal(browser, new URL('/login', server.base));
    // oidc-provider checks max_age on the real clock, in whole seconds.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const tooOld = await authorizationRequest(config, { prompt: 'none', scope: 'openid', max_age: '1' });
    expect((await browser.follow(tooOld.url.toString())).url.searchParams.get('error')).toBe('login_required');

    const other = new BrowserLike(server.base);
    const otherAuthorization = await authorizationRequest(config, { scope: 'openid' });
    const { id_token: hint } = await exchange(config, await codeFrom(other, otherAuthorization), otherAuthorization);
    const otherSignIn = new BrowserLike(server.base);
    await signInThroughPortal(otherSignIn, new URL('/login', server.base), { email: 'rp-other@example.com' });
    const named = await authorizationRequest(config, { prompt: 'none', scope: 'openid', id_token_hint: hint! });
    expect((await otherSignIn.follow(named.url.toString())).url.searchParams.get('error')).toBe('login_required');
  });

  it('forces a new sign-in for prompt=login and moves auth_time forward', async () => {
    const config = await discover('rp-one');
    const browser = new BrowserLike(server.base);
    const first = await authorizationRequest(config);
    const firstTokens = await exchange(config, await codeFrom(browser, first), first);
    await new Promise((resolve) => setTimeout(resolve, 1100));

    const again = await authorizationRequest(config, { prompt: 'login consent' });
    const { url } = await browser.follow(again.url.toString());
    expect(url.pathname).toBe('/login');
    const redirect = await signInThroughPortal(browser, url);
    const callback = (await browser.follow(redirect)).url;
    const tokens = await exchange(config, callback, again);
    expect(tokens.claims()!.auth_time!).toBeGreaterThan(firstTokens.claims()!.auth_time!);
  });

  it('asks for a sign-in again after a browser restart when "remember me" was off', async () => {
    const config = await discover('rp-one');
    const browser = new BrowserLike(server.base);
    const first = await authorizationRequest(config);
    await codeFrom(browser, first);
    expect(browser.isPersistent('nyckel_session')).toBe(false);
    expect(browser.isPersistent('nyckel_op_session')).toBe(false);
    browser.restart();

    const silent = await authorizationRequest(config, { prompt: 'none', scope: 'openid' });
    const answer = (await browser.follow(silent.url.toString())).url;
    expect(answer.searchParams.get('error')).toBe('login_required');
    const again = await authorizationRequest(config);
    expect((await browser.follow(again.url.toString())).url.pathname).toBe('/login');
  });

  it('keeps single sign-on across a browser restart when "remember me" was on', async () => {
    const config = await discover('rp-one');
    const browser = new BrowserLike(server.base);
    const first = await authorizationRequest(config);
    const landing = (await browser.follow(first.url.toString())).url;
    await browser.follow(await signInThroughPortal(browser, landing, { remember: true }));
    expect(browser.isPersistent('nyckel_session')).toBe(true);
    expect(browser.isPersistent('nyckel_op_session')).toBe(true);
    browser.restart();

    const silent = await authorizationRequest(config, { prompt: 'none' });
    const callback = (await browser.follow(silent.url.toString())).url;
    expect(callback.searchParams.get('code')).toBeTruthy();
    expect((await exchange(config, callback, silent)).claims()!.email).toBe('rp-user@example.com');
  });

  it('answers a silent request from another site, which carries the provider cookie but not the Lax portal one', async () => {
    const config = await discover('rp-one');
    const browser = new BrowserLike(server.base);
    await codeFrom(browser, await authorizationRequest(config));
    const crossSite = new BrowserLike(server.base);
    for (const [name, value] of browser.cookies) if (!name.startsWith('nyckel_session')) crossSite.cookies.set(name, value);
    const silent = await authorizationRequest(config, { prompt: 'none' });
    const callback = (await crossSite.follow(silent.url.toString())).url;
    expect(callback.searchParams.get('error')).toBeNull();
    expect((await exchange(config, callback, silent)).claims()!.email).toBe('rp-user@example.com');
  });

  it('refuses to answer from the provider session once the Nyckel session has ended', async () => {
    const config = await discover('rp-one');
    const browser = new BrowserLike(server.base);
    await codeFrom(browser, await authorizationRequest(config));
    // The portal session expires (or is signed out elsewhere) while the provider cookie lives on.
    const id = /^s%3A([^.]+)\./.exec(browser.cookies.get('nyckel_session')!)![1]!;
    await server.ctx.store.del(`session:${decodeURIComponent(id)}`);

    const silent = await authorizationRequest(config, { prompt: 'none', scope: 'openid' });
    expect((await browser.follow(silent.url.toString())).url.searchParams.get('error')).toBe('login_required');
  });

  it('issues codes for the account signed in at /login last, not the one the provider session remembers', async () => {
    const config = await discover('rp-one');
    const browser = new BrowserLike(server.base);
    await codeFrom(browser, await authorizationRequest(config));
    // Bob signs in on the same browser at /login, with no relying party involved.
    await signInThroughPortal(browser, new URL('/login', server.base), { email: 'rp-other@example.com' });

    // prompt=none cannot switch the provider session over; a plain request does, without a page.
    const silent = await authorizationRequest(config, { prompt: 'none', scope: 'openid' });
    expect((await browser.follow(silent.url.toString())).url.searchParams.get('error')).toBe('login_required');
    const next = await authorizationRequest(config);
    const callback = await followSwitching(browser, next.url.toString());
    expect(callback.origin + callback.pathname).toBe(redirectUri);
    expect((await exchange(config, callback, next)).claims()!.email).toBe('rp-other@example.com');
  });

  it('answers an interactive request whose id_token_hint names the person signed in at /login with a code, no page', async () => {
    const config = await discover('rp-one');
    const first = new BrowserLike(server.base);
    const authorization = await authorizationRequest(config, { scope: 'openid' });
    const firstTokens = await exchange(config, await codeFrom(first, authorization), authorization);
    const hint = firstTokens.id_token;

    // Another browser, signed in at /login only (the tenant picker's way), as the same person.
    const browser = new BrowserLike(server.base);
    await signInThroughPortal(browser, new URL('/login', server.base));
    const named = await authorizationRequest(config, { scope: 'openid', id_token_hint: hint! });
    const callback = (await browser.follow(named.url.toString())).url;
    expect(callback.origin + callback.pathname).toBe(redirectUri);
    const tokens = await exchange(config, callback, named);
    expect(tokens.claims()!.sub).toBe(firstTokens.claims()!.sub);
  });

  it('answers login_required, never a code for another account, when id_token_hint names someone else', async () => {
    const config = await discover('rp-one');
    const bobs = new BrowserLike(server.base);
    const forBob = await authorizationRequest(config);
    const bobLanding = (await bobs.follow(forBob.url.toString())).url;
    const bobCallback = (await bobs.follow(await signInThroughPortal(bobs, bobLanding, { email: 'rp-other@example.com' }))).url;
    const bobTokens = await exchange(config, bobCallback, forBob);

    const ritas = new BrowserLike(server.base);
    await codeFrom(ritas, await authorizationRequest(config));
    // Rita's sign-in must predate the request for it not to count as an answer to it.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const hinted = await authorizationRequest(config, { id_token_hint: bobTokens.id_token! });
    const landing = (await ritas.follow(hinted.url.toString())).url;
    expect(landing.pathname).toBe('/login');
    // Rita signs in again, as herself: the relying party hears that the person it named is not signed in.
    const answer = (await ritas.follow(await signInThroughPortal(ritas, landing))).url;
    expect(answer.origin + answer.pathname).toBe(redirectUri);
    expect(answer.searchParams.get('code')).toBeNull();
    expect(answer.searchParams.get('error')).toBe('login_required');

    // With a fresh sign-in as Bob, the hint is honoured.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const again = await authorizationRequest(config, { id_token_hint: bobTokens.id_token! });
    const relanding = (await ritas.follow(again.url.toString())).url;
    const callback = await followSwitching(ritas, await signInThroughPortal(ritas, relanding, { email: 'rp-other@example.com' }));
    expect((await exchange(config, callback, again)).claims()!.email).toBe('rp-other@example.com');
  });

  it("ends every application's access when the password is reset: refresh and userinfo refused", async () => {
    const config = await discover('rp-one');
    const authorization = await authorizationRequest(config);
    const browser = new BrowserLike(server.base);
    const landing = (await browser.follow(authorization.url.toString())).url;
    const callback = (await browser.follow(await signInThroughPortal(browser, landing, { email: 'rp-reset@example.com' }))).url;
    const tokens = await exchange(config, callback, authorization);
    expect(tokens.refresh_token).toBeTruthy();

    const { link } = await createResetLink(server.ctx, resetAccountId);
    const reset = await new BrowserLike(server.base).json('/auth/reset/confirm', { token: link.split('/').pop(), password: 'Another-horse7!' });
    expect(reset.status).toBe(200);

    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(client.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub)).rejects.toMatchObject({ status: 401 });
    // The browser's provider session went too: the next authorization asks for a sign-in.
    const next = await authorizationRequest(config, { prompt: 'none', scope: 'openid' });
    expect((await browser.follow(next.url.toString())).url.searchParams.get('error')).toBe('login_required');
  });

  it('ends a code not yet exchanged when the password is reset: the exchange after it is refused', async () => {
    const config = await discover('rp-one');
    const authorization = await authorizationRequest(config);
    const browser = new BrowserLike(server.base);
    const landing = (await browser.follow(authorization.url.toString())).url;
    const accountId = await createAccount(server.ctx.db, { email: 'rp-pending-code@example.com', password, name: 'Petra Pending' });
    const callback = (await browser.follow(await signInThroughPortal(browser, landing, { email: 'rp-pending-code@example.com' }))).url;
    expect(callback.searchParams.get('code')).toBeTruthy();

    const { link } = await createResetLink(server.ctx, accountId);
    const reset = await new BrowserLike(server.base).json('/auth/reset/confirm', { token: link.split('/').pop(), password: 'Another-horse8!' });
    expect(reset.status).toBe(200);
    await expect(exchange(config, callback, authorization)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses unregistered and subtly altered redirect URIs without redirecting', async () => {
    const config = await discover('rp-one');
    const browser = new BrowserLike(server.base);
    for (const altered of [
      'http://127.0.0.1:9/CALLBACK',
      'http://127.0.0.1:9/callback?x=1',
      'http://127.0.0.1:9/callback/../evil',
      'http://127.0.0.1:9@evil.example/callback',
      'http://evil.example/callback',
    ]) {
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: altered,
        scope: 'openid',
        code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
        code_challenge_method: 'S256',
      });
      const response = await browser.request(url.toString());
      expect(response.status, altered).toBe(400);
      expect(response.headers.get('location'), altered).toBeNull();
      expect(await response.text()).toContain('invalid_redirect_uri');
    }
  });

  it('requires PKCE and refuses the plain method', async () => {
    const browser = new BrowserLike(server.base);
    const base = `/oauth2/authorize?client_id=rp-one&response_type=code&scope=openid&redirect_uri=${encodeURIComponent(redirectUri)}`;
    for (const query of ['', '&code_challenge=abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqr&code_challenge_method=plain']) {
      const { url } = await browser.follow(base + query);
      expect(url.origin + url.pathname).toBe(redirectUri);
      expect(url.searchParams.get('error')).toBe('invalid_request');
    }
  });

  it('logs the person out through RP-initiated logout back to the registered URI', async () => {
    const config = await discover('rp-one');
    const browser = new BrowserLike(server.base);
    const authorization = await authorizationRequest(config);
    const tokens = await exchange(config, await codeFrom(browser, authorization), authorization);
    // Another tab has a sign-in in progress (the password step) when the person logs out.
    const pending = await browser.json<{ session_id: string }>('/auth/login/start', { email: 'rp-other@example.com' });
    expect(browser.cookies.has('nyckel_login')).toBe(true);
    const logout = client.buildEndSessionUrl(config, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: 'http://127.0.0.1:9/',
    });
    const page = await browser.request(logout.toString());
    const html = await page.text();
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1];
    expect(xsrf).toBeTruthy();
    const confirm = await browser.request('/oauth2/logout/confirm', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ xsrf: xsrf!, logout: 'yes' }),
    });
    const { url } = await browser.follow(confirm.headers.get('location')!);
    expect(url.toString()).toBe('http://127.0.0.1:9/');

    // The Nyckel session is gone too: the next authorization request needs a sign-in.
    const next = await authorizationRequest(config);
    const landing = await browser.follow(next.url.toString());
    expect(landing.url.pathname).toBe('/login');
    const ping = await browser.request('/auth/login/ping');
    expect(((await ping.json()) as { email: string | null }).email).toBeNull();
    // The logout cleared the login cookie: the other tab's sign-in cannot go on.
    expect(browser.cookies.has('nyckel_login')).toBe(false);
    const verify = await browser.json<{ detail: { type: string }[] }>('/auth/login/verify-password', {
      session_id: pending.body.session_id,
      email: 'rp-other@example.com',
      password,
    });
    expect([verify.status, verify.body.detail[0]!.type]).toEqual([401, 'login_session_missing']);
  });

  it('issues no code when a finished sign-in is resumed after its Nyckel session ended (the Back button on a shared computer)', async () => {
    await createAccount(server.ctx.db, { email: 'rp-resumed@example.com', password });
    const config = await discover('rp-one');
    const browser = new BrowserLike(server.base);
    const authorization = await authorizationRequest(config);
    const { url: login } = await browser.follow(authorization.url.toString());
    const finish = await signInThroughPortal(browser, login, { email: 'rp-resumed@example.com' });
    // The sign-in finished; the browser got the resume address but went no further.
    const resume = (await browser.request(finish)).headers.get('location')!;
    expect(new URL(resume, server.base).pathname).toMatch(/^\/oauth2\/authorize\//);
    expect((await browser.json('/api/accounts/sessions/sign-out', {})).status).toBe(200);

    const { url } = await browser.follow(resume);
    expect(url.searchParams.get('code')).toBeNull();
    expect(url.pathname).toBe('/login');
  });

  it('keeps a provider session no longer than a Nyckel session can live, and one without an account no longer than an interaction', async () => {
    const sessionTtl = async (browser: BrowserLike) => server.ctx.store.ttl(`oidc:Session:${browser.cookies.get('nyckel_op_session')!}`);
    // Anyone's logout or authorization that goes no further leaves a session behind: for an hour at most.
    const visitor = new BrowserLike(server.base);
    await visitor.request('/oauth2/logout');
    expect(await sessionTtl(visitor)).toBeGreaterThan(0);
    expect(await sessionTtl(visitor)).toBeLessThanOrEqual(3600);

    await createAccount(server.ctx.db, { email: 'rp-session-ttl@example.com', password });
    const browser = new BrowserLike(server.base);
    const config = await discover('rp-one');
    const authorization = await authorizationRequest(config);
    const { url: login } = await browser.follow(authorization.url.toString());
    const { url } = await browser.follow(await signInThroughPortal(browser, login, { email: 'rp-session-ttl@example.com' }));
    expect(url.searchParams.get('code')).toBeTruthy();
    const signedIn = (await sessionTtl(browser))!;
    expect(signedIn).toBeGreaterThan(3600);
    expect(signedIn).toBeLessThanOrEqual(12 * 3600);
  });

  it('asks before signing out a browser signed in to Nyckel alone: another site sending it to /oauth2/logout ends nothing', async () => {
    await createAccount(server.ctx.db, { email: 'rp-portal-only@example.com', password });
    const browser = new BrowserLike(server.base);
    await signInThroughPortal(browser, new URL('/login', server.base), { email: 'rp-portal-only@example.com' });
    const email = async () => ((await (await browser.request('/auth/login/ping')).json()) as { email: string | null }).email;
    expect(await email()).toBe('rp-portal-only@example.com');

    // A browser runs the page's own scripts: were it the form oidc-provider posts by itself, this
    // would post logout=yes. It is the question, whose form says nothing until a button is pressed.
    const html = await (await browser.request('/oauth2/logout', { headers: { 'accept-language': 'en' } })).text();
    expect(html).toContain('Sign out of Nyckel?');
    expect(html).toContain('name="logout"');
    await browser.followThroughForms('/oauth2/logout');
    expect(await email()).toBe('rp-portal-only@example.com');

    // "Yes, sign me out" does.
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(await (await browser.request('/oauth2/logout')).text())![1]!;
    const confirm = await browser.request('/oauth2/logout/confirm', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ xsrf, logout: 'yes' }),
    });
    expect(confirm.status).toBe(303);
    expect(await email()).toBeNull();
  });

  it('"Yes" also ends the applications an earlier provider session of the same Nyckel sign-in opened', async () => {
    const [one, two] = [await discover('rp-one'), await discover('rp-two')];
    const browser = new BrowserLike(server.base);
    const first = await authorizationRequest(one, { scope: 'openid email' });
    const oneTokens = await exchange(one, await codeFrom(browser, first), first);
    const userinfo = (accessToken: string) => fetch(`${server.issuer}/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect((await userinfo(oneTokens.access_token)).status).toBe(200);

    // The provider session's cookie goes (it ended with the browser); the Nyckel session stays and
    // signs a new provider session in for the next application, without a page.
    for (const name of [...browser.cookies.keys()]) if (name.startsWith('nyckel_op_session')) browser.cookies.delete(name);
    const second = await authorizationRequest(two, { scope: 'openid email' });
    const callback = (await browser.follow(second.url.toString())).url;
    expect(callback.origin + callback.pathname).toBe(redirectUri);
    const twoTokens = await exchange(two, callback, second);

    const logout = client.buildEndSessionUrl(two, { id_token_hint: twoTokens.id_token!, post_logout_redirect_uri: 'http://127.0.0.1:9/' });
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(await (await browser.request(logout.toString())).text())![1]!;
    const confirm = await browser.request('/oauth2/logout/confirm', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ xsrf, logout: 'yes' }),
    });
    expect(confirm.headers.get('location')).toBe('http://127.0.0.1:9/');
    expect((await userinfo(twoTokens.access_token)).status).toBe(401);
    expect((await userinfo(oneTokens.access_token)).status).toBe(401);
  });

  it('"No" at the logout confirmation signs the person out of the asking application only: Nyckel stays signed in', async () => {
    const [one, two] = [await discover('rp-one'), await discover('rp-two')];
    const browser = new BrowserLike(server.base);
    const authorization = await authorizationRequest(one);
    const tokens = await exchange(one, await codeFrom(browser, authorization), authorization);
    await codeFrom(browser, await authorizationRequest(two, { scope: 'openid email' }));
    const logout = client.buildEndSessionUrl(one, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: 'http://127.0.0.1:9/' });
    const html = await (await browser.request(logout.toString(), { headers: { 'accept-language': 'en' } })).text();
    expect(html).toContain('No, only sign me out of rp-one');
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)![1]!;
    const confirm = await browser.request('/oauth2/logout/confirm', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ xsrf }),
    });
    expect(confirm.headers.get('location')).toBe('http://127.0.0.1:9/');

    // Nyckel is still signed in: the portal session answers, and another application signs in silently.
    const ping = (await (await browser.request('/auth/login/ping')).json()) as { email: string | null };
    expect(ping.email).toBe('rp-user@example.com');
    const silent = await authorizationRequest(two, { prompt: 'none', scope: 'openid email' });
    const { url } = await browser.follow(silent.url.toString());
    expect(url.origin + url.pathname).toBe(redirectUri);
    expect(url.searchParams.get('error')).toBeNull();
    expect(url.searchParams.get('code')).toBeTruthy();
  });

  it("answers a userinfo call without a token or session with RFC 6750's challenge", async () => {
    const bare = await fetch(`${server.issuer}/userinfo`);
    expect(bare.status).toBe(401);
    expect(bare.headers.get('www-authenticate')).toBe(`Bearer realm="${server.issuer}"`);
    const wrong = await fetch(`${server.issuer}/userinfo`, { headers: { authorization: 'Bearer not-a-token' } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
  });

  it('no other site may frame the pages oidc-provider renders, and they load nothing', async () => {
    const browser = new BrowserLike(server.base);
    await codeFrom(browser, await authorizationRequest(await discover('rp-one')));
    for (const response of [await browser.request('/oauth2/logout'), await fetch(`${server.issuer}/authorize?client_id=nobody`)]) {
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    }
  });

  it("renders the logout and error pages in the person's language, with nothing from other hosts", async () => {
    // The confirmation is only shown to someone signed in; without a session it submits itself.
    const browser = new BrowserLike(server.base);
    await codeFrom(browser, await authorizationRequest(await discover('rp-one')));
    const swedish = await browser.request('/oauth2/logout', { headers: { 'accept-language': 'sv-SE,sv;q=0.9' } });
    const sv = await swedish.text();
    expect(sv).toContain('Logga ut från Nyckel?');
    expect(sv).toContain('name="xsrf"');
    const english = await (await browser.request('/oauth2/logout', { headers: { 'accept-language': 'en' } })).text();
    expect(english).toContain('Sign out of Nyckel?');
    const error = await fetch(`${server.issuer}/authorize?client_id=nobody&ui_locales=sv`);
    expect(error.status).toBe(400);
    const errorPage = await error.text();
    expect(errorPage).toContain('Inloggningen kunde inte fortsätta');
    for (const html of [sv, english, errorPage]) expect(html).not.toMatch(/(src|href)=["']?https?:|@import/);
  });

  it('opens /login in the first language of ui_locales that Nyckel speaks, region subtags and all', async () => {
    const config = await discover('rp-one');
    for (const [uiLocales, lang] of [['fi sv-SE en', 'sv'], ['en-GB', 'en'], ['de fr', null]] as const) {
      const browser = new BrowserLike(server.base);
      const { url } = await browser.follow((await authorizationRequest(config, { ui_locales: uiLocales })).url.toString());
      expect(url.pathname, uiLocales).toBe('/login');
      expect(url.searchParams.get('lang'), uiLocales).toBe(lang);
    }
  });

  it("hands login_hint to /login to fill in the address, not as `email`, which would start the sign-in", async () => {
    const browser = new BrowserLike(server.base);
    const { url } = await browser.follow((await authorizationRequest(await discover('rp-one'), { login_hint: 'hint@example.test' })).url.toString());
    expect(url.pathname).toBe('/login');
    expect(url.searchParams.get('login_hint')).toBe('hint@example.test');
    expect(url.searchParams.has('email')).toBe(false);
  });

  it('publishes discovery metadata that certified clients rely on', async () => {
    const response = await fetch(`${server.issuer}/.well-known/openid-configuration`);
    const metadata = (await response.json()) as Record<string, string[] | string>;
    expect(metadata.issuer).toBe(server.issuer);
    expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
    expect(metadata.response_types_supported).toEqual(['code']);
    expect(metadata.id_token_signing_alg_values_supported).not.toContain('none');
    expect(metadata.grant_types_supported).not.toContain('implicit');
    expect(metadata.grant_types_supported).not.toContain('password');
    // Only the methods a client can be registered with (secrets are kept hashed: no client_secret_jwt).
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(['client_secret_basic', 'client_secret_post', 'none']);
  });
});

describe('the back-channel endpoints', () => {
  let limited: TestServer;

  beforeAll(async () => {
    // Behind one proxy: each test below comes from its own address (X-Forwarded-For).
    limited = await startTestServer({ env: { OAUTH_RATE_LIMIT_PER_MINUTE: '3', TRUST_PROXY: '1' } });
    await upsertClient(limited.ctx.db, { client_id: 'rp-limited', redirect_uris: [redirectUri], client_secret: 'rp-limited-secret-0123456789' });
  });
  afterAll(async () => {
    await limited?.close();
  });

  beforeEach(withMinuteWindowLeft, 20_000);

  /** A form POST to `path` as `client` (HTTP Basic with `secret`), from `address` (X-Forwarded-For). */
  const postAs = (path: string, client: string, secret: string, address: string, form: Record<string, string>) =>
    fetch(`${limited.issuer}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${client}:${secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
        'x-forwarded-for': address,
      },
      body: new URLSearchParams(form),
    });

  it('are rate-limited per client, in the RFC 6749 error shape', async () => {
    const basic = `Basic ${Buffer.from('rp-limited:rp-limited-secret-0123456789').toString('base64')}`;
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 4; i += 1) {
      last = await fetch(`${limited.issuer}/introspect`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: 'not-a-token' }),
      });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await last!.json()).toMatchObject({ error: 'slow_down' });
  });

  it("hold their budget whatever the path's case or trailing slash (oidc-provider routes them all)", async () => {
    await upsertClient(limited.ctx.db, { client_id: 'rp-limited-paths', redirect_uris: [redirectUri], client_secret: 'rp-limited-paths-secret-0123' });
    const basic = `Basic ${Buffer.from('rp-limited-paths:rp-limited-paths-secret-0123').toString('base64')}`;
    const answers: { status: number; body: unknown }[] = [];
    for (const path of ['/INTROSPECT', '/introspect/', '/Revoke/', '/Introspect']) {
      const res = await fetch(`${limited.issuer}${path}`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '203.0.113.10' },
        body: new URLSearchParams({ token: 'not-a-token' }),
      });
      const text = await res.text();
      answers.push({ status: res.status, body: text ? JSON.parse(text) : undefined });
    }
    // The first three reached oidc-provider's endpoints (an unknown token introspects as inactive;
    // revocation answers 200 with no body).
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(answers[0]!.body).toEqual({ active: false });
    expect(answers[3]!.body).toMatchObject({ error: 'slow_down' });
  });

  it("keep a client's budget for those holding its secret: a wrong secret spends only its sender's", async () => {
    await upsertClient(limited.ctx.db, { client_id: 'rp-limited-target', redirect_uris: [redirectUri], client_secret: 'rp-limited-target-secret-012' });
    const introspect = async (secret: string, address: string) => {
      const res = await postAs('/introspect', 'rp-limited-target', secret, address, { token: 'not-a-token' });
      await res.body?.cancel();
      return res.status;
    };
    const attacker: number[] = [];
    for (let i = 0; i < 4; i += 1) attacker.push(await introspect('guessed-secret', '203.0.113.30'));
    expect(attacker).toEqual([401, 401, 401, 429]);
    const owner: number[] = [];
    for (let i = 0; i < 3; i += 1) owner.push(await introspect('rp-limited-target-secret-012', '203.0.113.31'));
    expect(owner).toEqual([200, 200, 200]);
  });

  it('hold a request in absolute form (POST http://host/oauth2/introspect) to the same budget', async () => {
    await upsertClient(limited.ctx.db, { client_id: 'rp-limited-absolute', redirect_uris: [redirectUri], client_secret: 'rp-limited-absolute-secret-0' });
    const target = new URL(`${limited.issuer}/introspect`);
    const send = () =>
      new Promise<number>((resolve, reject) => {
        const body = 'token=not-a-token';
        const req = http.request(
          {
            host: target.hostname,
            port: target.port,
            method: 'POST',
            path: target.toString(),
            headers: {
              authorization: `Basic ${Buffer.from('rp-limited-absolute:rp-limited-absolute-secret-0').toString('base64')}`,
              'content-type': 'application/x-www-form-urlencoded',
              'content-length': Buffer.byteLength(body),
              'x-forwarded-for': '203.0.113.40',
            },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode!));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) statuses.push(await send());
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  /** A raw POST: the request target and the Authorization header exactly as given (fetch would normalise both). */
  const rawPost = (path: string, authorization: string, address: string) =>
    new Promise<number>((resolve, reject) => {
      const target = new URL(limited.issuer);
      const body = 'token=not-a-token';
      const req = http.request(
        {
          host: target.hostname,
          port: target.port,
          method: 'POST',
          path,
          headers: { authorization, 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body), 'x-forwarded-for': address },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  it('hold a request target with a fragment or a percent-encoded path to the same budget (Express would route them)', async () => {
    await upsertClient(limited.ctx.db, { client_id: 'rp-limited-targets', redirect_uris: [redirectUri], client_secret: 'rp-limited-targets-secret-01' });
    const basic = `Basic ${Buffer.from('rp-limited-targets:rp-limited-targets-secret-01').toString('base64')}`;
    const statuses: number[] = [];
    for (const path of ['/oauth2/introspect#x', '/oauth2/introspect?#', '/oauth2/%69ntrospect', '/oauth2/introspect#y']) statuses.push(await rawPost(path, basic, '203.0.113.50'));
    // A fragment is refused outright (it is no part of a request target); a percent-encoded path
    // reaches no endpoint of oidc-provider's (404).
    expect(statuses).toEqual([400, 400, 404, 400]);
  });

  it("hold a client's budget however its Basic header is written (scheme case, percent-encoded secret)", async () => {
    await upsertClient(limited.ctx.db, { client_id: 'rp-limited-basic', redirect_uris: [redirectUri], client_secret: 'rp-limited-basic-secret-0123' });
    const encode = (id: string, secret: string) => Buffer.from(`${id}:${secret}`).toString('base64');
    const headers = [
      `Basic ${encode('rp-limited-basic', 'rp-limited-basic-secret-0123')}`,
      `basic ${encode('rp-limited-basic', 'rp-limited-basic-secret-0123')}`,
      `BASIC ${encode('rp-limited-basic', '%72p-limited-basic-secret-0123')}`,
      `Basic ${encode('rp-limited-basic', 'rp-limited-basic-secret-%30123')}`,
    ];
    // Each from its own address: only the client's budget (3) is shared.
    const statuses: number[] = [];
    for (const [i, header] of headers.entries()) statuses.push(await rawPost('/oauth2/introspect', header, `203.0.113.${60 + i}`));
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('hold clients without Basic credentials to the budget of their address, as the proxy names it', async () => {
    const revoke = async (address: string) => {
      const res = await fetch(`${limited.issuer}/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address },
        body: new URLSearchParams({ token: 'not-a-token', client_id: 'rp-limited' }),
      });
      await res.body?.cancel();
      return res.status;
    };
    // Twice the client budget per address: 6 requests reach oidc-provider, the 7th is refused.
    const statuses: number[] = [];
    for (let i = 0; i < 7; i += 1) statuses.push(await revoke('203.0.113.20'));
    expect(statuses.slice(0, 6).filter((status) => status === 429)).toEqual([]);
    expect(statuses[6]).toBe(429);
    // Another address has a budget of its own.
    expect(await revoke('203.0.113.21')).not.toBe(429);
  });

  it("hold pushed authorization requests to the same budgets: the client's, and the address's, which bounds secret guessing", async () => {
    await upsertClient(limited.ctx.db, { client_id: 'rp-limited-par', redirect_uris: [redirectUri], client_secret: 'rp-limited-par-secret-012345' });
    const push = async (secret: string, address: string) => {
      const res = await postAs('/par', 'rp-limited-par', secret, address, {
        client_id: 'rp-limited-par',
        response_type: 'code',
        redirect_uri: redirectUri,
        scope: 'openid',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      });
      const text = await res.text();
      return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
    };
    const owner = [];
    for (let i = 0; i < 4; i += 1) owner.push(await push('rp-limited-par-secret-012345', '203.0.113.50'));
    expect(owner.map((answer) => answer.status)).toEqual([201, 201, 201, 429]);
    expect(owner[0]!.body).toMatchObject({ request_uri: expect.stringMatching(/^urn:ietf:params:oauth:request_uri:/) });
    expect(owner[3]!.body).toMatchObject({ error: 'slow_down' });
    // Each guess is a budget of its own (only the secret's holder spends the client's); the
    // address's budget, twice a client's, is what ends them.
    const guesses = [];
    for (let i = 0; i < 7; i += 1) guesses.push((await push(`guessed-secret-${i}`, '203.0.113.51')).status);
    expect(guesses).toEqual([401, 401, 401, 401, 401, 401, 429]);
  });

  it('are measured per endpoint in /metrics', async () => {
    const res = await fetch(`${limited.base}/metrics`);
    const text = await res.text();
    expect(text).toMatch(/nyckel_http_request_duration_seconds_count\{method="POST",route="\/oauth2\/introspect",status="200"\} [1-9]/);
    expect(text).toMatch(/nyckel_http_request_duration_seconds_count\{method="POST",route="\/oauth2\/introspect",status="429"\} [1-9]/);
  });
});
