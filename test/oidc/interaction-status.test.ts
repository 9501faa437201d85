import * as client from 'openid-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clientMetadata, upsertClient } from '../../src/oidc/clients.ts';
import { destroyAccountPortalSessions } from '../../src/session/portal-session.ts';
import { StoreUnavailableError } from '../../src/store/store.ts';
import { createAccount } from '../fixtures/accounts.ts';
import { pkceAuthorization } from '../helpers/authorization.ts';
import { BrowserLike } from '../helpers/browser-like.ts';
import { restoreSignInBudgets, spendIpBudget } from '../helpers/ip-budget.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * GET /auth/interaction/:uid/status: what /login asks on load, before it shows its form, about the
 * application's sign-in request named in its query (`interaction`), and where the application
 * would start a new one (its `initiate_login_uri`) when that request is over.
 */
const email = 'status-user@example.com';
const password = 'Status-horse9!';
const redirectUri = 'http://127.0.0.1:9/callback';
const initiateLoginUri = 'https://app.example/start?from=nyckel';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  await createAccount(server.ctx.db, { email, password });
  await upsertClient(server.ctx.db, { client_id: 'status-rp', redirect_uris: [redirectUri], client_secret: 'status-rp-secret-0123456789' });
  // initiate_login_uri, as `npm run client -- add … --login-uri <uri>` registers it.
  const initiating = { ...clientMetadata({ client_id: 'status-initiating', public: true, redirect_uris: [redirectUri] }), initiate_login_uri: initiateLoginUri };
  await server.ctx.db('oidc_clients').insert({ client_id: 'status-initiating', metadata: JSON.stringify(initiating) });
  // oidc-provider takes only https for initiate_login_uri: this client's metadata does not load.
  const refused = { ...clientMetadata({ client_id: 'status-refused', public: true, redirect_uris: [redirectUri] }), initiate_login_uri: 'http://app.example/start' };
  await server.ctx.db('oidc_clients').insert({ client_id: 'status-refused', metadata: JSON.stringify(refused) });
});

afterAll(async () => {
  await server?.close();
});

/**
 * A browser sent to /login by a new authorization request of `clientId` (with `params`), and that
 * /login's URL. `tab()` makes that request's interaction cookies the browser's again: a real
 * browser keeps one per interaction (path /auth/interaction/<uid>), BrowserLike one per name.
 */
async function atLogin(
  clientId: string,
  { browser = new BrowserLike(server.base), params = {} }: { browser?: BrowserLike; params?: Record<string, string> } = {},
): Promise<{ browser: BrowserLike; login: URL; tab: () => void }> {
  const secret = clientId === 'status-rp' ? 'status-rp-secret-0123456789' : undefined;
  const config = await client.discovery(new URL(server.issuer), clientId, secret, secret ? undefined : client.None(), { execute: [client.allowInsecureRequests] });
  const authorization = await pkceAuthorization(config, { redirect_uri: redirectUri, scope: 'openid email', ...params });
  const { url } = await browser.follow(authorization.url.toString());
  expect(url.pathname).toBe('/login');
  expect(url.searchParams.get('client_id')).toBe(clientId);
  const own = [...browser.cookies].filter(([name]) => name.startsWith('nyckel_interaction'));
  return { browser, login: url, tab: () => own.forEach(([name, value]) => browser.cookies.set(name, value)) };
}

/** Signs in on /login's API as the portal does and follows Done back to the relying party. */
async function signInToTheEnd(browser: BrowserLike, login: URL): Promise<void> {
  await expectCode(browser, await signIn(browser, login));
}

/** Signs in on /login's API as the portal does; answers where Done sends the browser. */
async function signIn(browser: BrowserLike, login: URL): Promise<string> {
  const start = await browser.json<{ session_id: string }>(`/auth/login/start${login.search}`, { email });
  const done = await browser.json<{ state: string; redirect_to: string }>('/auth/login/verify-password', { session_id: start.body.session_id, email, password });
  expect(done.body.state).toBe('Done');
  return done.body.redirect_to;
}

/** Following `path` reaches the relying party's redirect URI with a code. */
async function expectCode(browser: BrowserLike, path: string): Promise<void> {
  const { url } = await browser.follow(path);
  expect(url.origin + url.pathname).toBe(redirectUri);
  expect(url.searchParams.has('code')).toBe(true);
}

/** The status of the interaction `login` names, asked with /login's own client_id (or `clientId`). */
async function status(browser: BrowserLike, login: URL, clientId = login.searchParams.get('client_id')) {
  const uid = login.searchParams.get('interaction')!;
  const query = clientId === null ? '' : `?${new URLSearchParams({ client_id: clientId })}`;
  const response = await browser.request(`/auth/interaction/${uid}/status${query}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('GET /auth/interaction/:uid/status', () => {
  it('answers active while the request waits for the person to sign in', async () => {
    const { browser, login } = await atLogin('status-rp');
    expect(await status(browser, login)).toEqual({ status: 200, body: { state: 'active', resumable: false } });
    // A request that still lives is never restarted, even by a client that could.
    const initiating = await atLogin('status-initiating');
    expect(await status(initiating.browser, initiating.login)).toEqual({ status: 200, body: { state: 'active', resumable: false } });
  });

  it('answers ended once the sign-in finished and the application has its code (Back, or a bookmark)', async () => {
    const { browser, login } = await atLogin('status-rp');
    await signInToTheEnd(browser, login);
    expect(await status(browser, login)).toEqual({ status: 200, body: { state: 'ended' } });
  });

  it('answers ended for an interaction nobody made', async () => {
    const { browser, login } = await atLogin('status-rp');
    const madeUp = new URL(login);
    madeUp.searchParams.set('interaction', 'x'.repeat(21));
    expect(await status(browser, madeUp)).toEqual({ status: 200, body: { state: 'ended' } });
  });

  it("answers ended to another browser, with or without an interaction of its own: only the request's own cookie hears active", async () => {
    const mine = await atLogin('status-rp');
    const theirs = await atLogin('status-rp');
    expect(await status(theirs.browser, mine.login)).toEqual({ status: 200, body: { state: 'ended' } });
    expect(await status(new BrowserLike(server.base), mine.login)).toEqual({ status: 200, body: { state: 'ended' } });
    // A cookie naming the uid without its signature is no interaction cookie.
    const forged = new BrowserLike(server.base);
    forged.cookies.set('nyckel_interaction', mine.login.searchParams.get('interaction')!);
    expect(await status(forged, mine.login)).toEqual({ status: 200, body: { state: 'ended' } });
    // The request itself still lives for its own browser.
    expect(await status(mine.browser, mine.login)).toEqual({ status: 200, body: { state: 'active', resumable: false } });
  });

  it('names where the application starts a new sign-in: its registered initiate_login_uri, with iss', async () => {
    const { browser, login } = await atLogin('status-initiating');
    await signInToTheEnd(browser, login);
    const restart = new URL(String((await status(browser, login)).body.restart_uri));
    expect(restart.origin + restart.pathname).toBe('https://app.example/start');
    expect(Object.fromEntries(restart.searchParams)).toEqual({ from: 'nyckel', iss: server.issuer });
    expect(await status(browser, login)).toEqual({ status: 200, body: { state: 'ended', restart_uri: restart.toString() } });
  });

  it('says nothing more of an unknown client, or one whose metadata does not load, than of a client without initiate_login_uri', async () => {
    const { browser, login } = await atLogin('status-rp');
    await signInToTheEnd(browser, login);
    for (const clientId of ['nobody-registered', 'status-refused', 'status-rp', 'x'.repeat(300), null]) {
      expect(await status(browser, login, clientId), String(clientId)).toEqual({ status: 200, body: { state: 'ended' } });
    }
  });

  it('answers 503 when the store cannot be read, never ended', async () => {
    const { browser, login } = await atLogin('status-rp');
    const store = server.ctx.store;
    const get = store.get.bind(store);
    store.get = (key: string) => (key.startsWith('oidc:Interaction:') ? Promise.reject(new StoreUnavailableError('store down (test)')) : get(key));
    try {
      const answer = await status(browser, login);
      expect(answer.status).toBe(503);
      expect(answer.body).toEqual({ detail: [expect.objectContaining({ type: 'service_unavailable' })] });
    } finally {
      store.get = get;
    }
    expect(await status(browser, login)).toEqual({ status: 200, body: { state: 'active', resumable: false } });
  });

  it("spends the per-IP sign-in budget on a client's lookup only", async () => {
    const { browser, login } = await atLogin('status-rp');
    await spendIpBudget(server.ctx, '127.0.0.1');
    expect(await status(browser, login)).toEqual({ status: 200, body: { state: 'active', resumable: false } });
    expect(await status(browser, login, null)).toEqual({ status: 200, body: { state: 'active', resumable: false } });
    const madeUp = new URL(login);
    madeUp.searchParams.set('interaction', 'x'.repeat(21));
    expect((await status(browser, madeUp, null)).body).toEqual({ state: 'ended' });
    expect((await status(browser, madeUp, 'status-initiating')).status).toBe(429);
  });
});

/**
 * `resumable`: whether GET /auth/interaction/:uid would now finish the request without /login,
 * as when several tabs of an application wait at /login (restored after a restart) and the person
 * signs in in one of them. /login goes there when it is shown again.
 */
describe('GET /auth/interaction/:uid/status: resumable', () => {
  beforeEach(() => restoreSignInBudgets(server.ctx, [email]));
  const interaction = (login: URL) => `/auth/interaction/${login.searchParams.get('interaction')!}`;

  it.each<{ request: string; params: Record<string, string>; resumable: boolean }>([
    { request: 'a plain request', params: {}, resumable: true },
    { request: 'max_age=600', params: { max_age: '600' }, resumable: true },
    { request: 'prompt=login', params: { prompt: 'login' }, resumable: false },
    { request: 'max_age=0', params: { max_age: '0' }, resumable: false },
  ])('after a sign-in for another request in the same browser, $request waiting at /login: $resumable', async ({ params, resumable }) => {
    const waiting = await atLogin('status-rp', { params });
    const other = await atLogin('status-rp', { browser: waiting.browser });
    await signInToTheEnd(other.browser, other.login);

    waiting.tab();
    expect(await status(waiting.browser, waiting.login)).toEqual({ status: 200, body: { state: 'active', resumable } });
    if (resumable) {
      await expectCode(waiting.browser, interaction(waiting.login));
      expect((await status(waiting.browser, waiting.login)).body).toEqual({ state: 'ended' });
    } else {
      // The request demands a sign-in of its own, made after it began: the session from before
      // does not answer it, and the GET /login would be sent to says so too (no loop).
      const { url } = await waiting.browser.follow(interaction(waiting.login));
      expect(url.pathname).toBe('/login');
      // Its own sign-in then finishes it.
      await expectCode(waiting.browser, await signIn(waiting.browser, waiting.login));
    }
  });

  it('is false when the request names someone else than the account signed in since (it would only answer login_required)', async () => {
    // Someone else signed in to the end in this browser; their Nyckel session then ended (as one
    // left idle does) while the provider session stays. The application asks for them by their ID
    // token: the provider session agrees, only the Nyckel session is missing, so /login.
    const otherEmail = `status-other-${Date.now()}@example.com`;
    const otherId = await createAccount(server.ctx.db, { email: otherEmail, password });
    const config = await client.discovery(new URL(server.issuer), 'status-rp', 'status-rp-secret-0123456789', undefined, { execute: [client.allowInsecureRequests] });
    const theirs = await pkceAuthorization(config, { redirect_uri: redirectUri, scope: 'openid email' });
    const browser = new BrowserLike(server.base);
    const { url: theirLogin } = await browser.follow(theirs.url.toString());
    const start = await browser.json<{ session_id: string }>(`/auth/login/start${theirLogin.search}`, { email: otherEmail });
    const done = await browser.json<{ redirect_to: string }>('/auth/login/verify-password', { session_id: start.body.session_id, email: otherEmail, password });
    const { url: callback } = await browser.follow(done.body.redirect_to);
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: theirs.verifier, expectedState: theirs.state, expectedNonce: theirs.nonce! });
    await destroyAccountPortalSessions(server.ctx, otherId);
    const waiting = await atLogin('status-rp', { browser, params: { id_token_hint: tokens.id_token! } });

    // The status account signs in in another tab, at /login itself.
    const own = await browser.json<{ session_id: string }>('/auth/login/start', { email });
    const signedIn = await browser.json<{ state: string }>('/auth/login/verify-password', { session_id: own.body.session_id, email, password });
    expect(signedIn.body.state).toBe('Done');

    waiting.tab();
    expect(await status(browser, waiting.login)).toEqual({ status: 200, body: { state: 'active', resumable: false } });
    // Went to all the same, the request is answered login_required, never with a code.
    const { url } = await browser.follow(interaction(waiting.login));
    expect([url.origin + url.pathname, url.searchParams.get('error')]).toEqual([redirectUri, 'login_required']);
  });

  it('is false for a sign-in in another browser', async () => {
    const waiting = await atLogin('status-rp');
    const elsewhere = await atLogin('status-rp');
    await signInToTheEnd(elsewhere.browser, elsewhere.login);
    expect(await status(waiting.browser, waiting.login)).toEqual({ status: 200, body: { state: 'active', resumable: false } });
  });

  it('is true for a request the GET answers before any sign-in page (no scope Nyckel knows)', async () => {
    const config = await client.discovery(new URL(server.issuer), 'status-initiating', undefined, client.None(), { execute: [client.allowInsecureRequests] });
    const authorization = await pkceAuthorization(config, { redirect_uri: redirectUri, scope: 'admin' }, { nonce: false });
    const browser = new BrowserLike(server.base);
    const location = new URL((await browser.request(authorization.url.toString())).headers.get('location')!, server.base);
    expect(location.pathname).toMatch(/^\/auth\/interaction\/[^/]+$/);
    const uid = location.pathname.split('/').pop()!;
    expect(await status(browser, new URL(`/login?interaction=${uid}`, server.base), null)).toEqual({ status: 200, body: { state: 'active', resumable: true } });
    const { url } = await browser.follow(location.toString());
    expect(url.searchParams.get('error')).toBe('invalid_scope');
  });
});
