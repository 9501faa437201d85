import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientMetadata, upsertClient } from '../../src/oidc/clients.ts';
import { StoreUnavailableError } from '../../src/store/store.ts';
import { createAccount } from '../fixtures/accounts.ts';
import { pkceAuthorization } from '../helpers/authorization.ts';
import { BrowserLike } from '../helpers/browser-like.ts';
import { spendIpBudget } from '../helpers/ip-budget.ts';
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

/** A browser sent to /login by a new authorization request of `clientId`, and that /login's URL. */
async function atLogin(clientId: string): Promise<{ browser: BrowserLike; login: URL }> {
  const secret = clientId === 'status-rp' ? 'status-rp-secret-0123456789' : undefined;
  const config = await client.discovery(new URL(server.issuer), clientId, secret, secret ? undefined : client.None(), { execute: [client.allowInsecureRequests] });
  const authorization = await pkceAuthorization(config, { redirect_uri: redirectUri, scope: 'openid email' });
  const browser = new BrowserLike(server.base);
  const { url } = await browser.follow(authorization.url.toString());
  expect(url.pathname).toBe('/login');
  expect(url.searchParams.get('client_id')).toBe(clientId);
  return { browser, login: url };
}

/** Signs in on /login's API as the portal does and follows Done back to the relying party. */
async function signInToTheEnd(browser: BrowserLike, login: URL): Promise<void> {
  const start = await browser.json<{ session_id: string }>(`/auth/login/start${login.search}`, { email });
  const done = await browser.json<{ state: string; redirect_to: string }>('/auth/login/verify-password', { session_id: start.body.session_id, email, password });
  expect(done.body.state).toBe('Done');
  const { url } = await browser.follow(done.body.redirect_to);
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
    expect(await status(browser, login)).toEqual({ status: 200, body: { state: 'active' } });
    // A request that still lives is never restarted, even by a client that could.
    const initiating = await atLogin('status-initiating');
    expect(await status(initiating.browser, initiating.login)).toEqual({ status: 200, body: { state: 'active' } });
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
    expect(await status(mine.browser, mine.login)).toEqual({ status: 200, body: { state: 'active' } });
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
    expect(await status(browser, login)).toEqual({ status: 200, body: { state: 'active' } });
  });

  it("spends the per-IP sign-in budget on a client's lookup only", async () => {
    const { browser, login } = await atLogin('status-rp');
    await spendIpBudget(server.ctx, '127.0.0.1');
    expect(await status(browser, login)).toEqual({ status: 200, body: { state: 'active' } });
    expect(await status(browser, login, null)).toEqual({ status: 200, body: { state: 'active' } });
    const madeUp = new URL(login);
    madeUp.searchParams.set('interaction', 'x'.repeat(21));
    expect((await status(browser, madeUp, null)).body).toEqual({ state: 'ended' });
    expect((await status(browser, madeUp, 'status-initiating')).status).toBe(429);
  });
});
