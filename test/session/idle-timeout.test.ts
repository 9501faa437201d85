import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { upsertClient } from '../../src/oidc/clients.ts';
import type { SessionsAnswer } from '../../src/profile/sessions.service.ts';
import {
  destroyAccountPortalSessions,
  destroyPortalSession,
  type PortalSession,
} from '../../src/session/portal-session.ts';
import { lastSeenWriteSeconds, portalSessionTtlSeconds } from '../../src/session/session-deadlines.ts';
import { createAccount } from '../fixtures/accounts.ts';
import * as client from 'openid-client';
import { pkceAuthorization } from '../helpers/authorization.ts';
import { BrowserLike } from '../helpers/browser-like.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * A Nyckel session signed in without "remember me" ends after SESSION_IDLE_MINUTES (30) without
 * use; every session ends 12 h after its sign-in; "remember me" keeps only that cap.
 */
const PASSWORD = 'Correct-horse9!';
const REDIRECT_URI = 'http://127.0.0.1:9/callback';
const minutes = (n: number) => n * 60_000;
const hours = (n: number) => n * 3_600_000;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  await upsertClient(server.ctx.db, { client_id: 'rp-idle', client_name: 'Idle RP', redirect_uris: [REDIRECT_URI], client_secret: 'rp-idle-secret-0123456789' });
});
afterAll(async () => {
  await server?.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

let counter = 0;
async function person(): Promise<{ id: string; email: string }> {
  counter += 1;
  const email = `idle-${counter}-${Date.now()}@example.com`;
  return { id: await createAccount(server.ctx.db, { email, password: PASSWORD, name: `Idle ${counter}` }), email };
}

/** A browser signed in at /login, with or without "remember me". */
async function signIn(email: string, remember = false): Promise<BrowserLike> {
  const browser = new BrowserLike(server.base);
  const start = await browser.json<{ session_id: string }>('/auth/login/start', { email });
  const done = await browser.json<{ state: string }>('/auth/login/verify-password', { session_id: start.body.session_id, email, password: PASSWORD, remember });
  expect(done.body.state).toBe('Done');
  return browser;
}

const status = async (browser: BrowserLike, path: string) => (await browser.request(path)).status;
const userinfo = (browser: BrowserLike) => status(browser, '/oauth2/userinfo');

async function sessionList(browser: BrowserLike): Promise<SessionsAnswer['sessions']> {
  const response = await browser.request('/api/accounts/sessions');
  expect(response.status).toBe(200);
  return ((await response.json()) as SessionsAnswer).sessions;
}

/** The session id inside the browser's signed cookie (`s:<id>.<signature>`). */
function sessionIdOf(browser: BrowserLike): string {
  const cookie = decodeURIComponent(browser.cookies.get('nyckel_session')!);
  return cookie.slice('s:'.length, cookie.lastIndexOf('.'));
}

async function stored(id: string): Promise<PortalSession | null> {
  const raw = await server.ctx.store.get(`session:${id}`);
  return raw ? (JSON.parse(raw) as PortalSession) : null;
}

const nowSeconds = () => Math.floor(server.ctx.now().getTime() / 1000);

describe('the idle timeout of a Nyckel session without "remember me"', () => {
  it('signs a session unused for 31 minutes out: userinfo and the profile API answer 401, and it leaves the session list', async () => {
    const { email } = await person();
    const idle = await signIn(email);
    expect(await userinfo(idle)).toBe(200);

    server.ctx.advance(minutes(31));
    const here = await signIn(email);
    expect(await userinfo(idle)).toBe(401);
    expect(await status(idle, '/api/accounts/sessions')).toBe(401);
    expect(await sessionList(here)).toEqual([expect.objectContaining({ current: true })]);
    expect(await stored(sessionIdOf(idle))).toBeNull();
  });

  it('keeps a session used every 20 minutes past 31 minutes', async () => {
    const { email } = await person();
    const browser = await signIn(email);
    for (let i = 0; i < 4; i += 1) {
      server.ctx.advance(minutes(20));
      expect(await userinfo(browser)).toBe(200);
    }
    server.ctx.advance(minutes(29));
    expect(await status(browser, '/api/accounts/sessions')).toBe(200);
  });

  it('does not count listing sessions as use of the other sessions listed; an idle one is dropped from the list', async () => {
    const { email } = await person();
    const away = await signIn(email);
    const here = await signIn(email);
    server.ctx.advance(minutes(20));
    expect(await sessionList(here)).toHaveLength(2);
    server.ctx.advance(minutes(11));
    // Listing at 20 minutes did not refresh the other session: 31 minutes unused, it is gone.
    expect(await sessionList(here)).toEqual([expect.objectContaining({ current: true })]);
    expect(await userinfo(away)).toBe(401);
  });

  it('still ends a session in use at 12 hours after its sign-in, and never extends its store TTL', async () => {
    const { email } = await person();
    const browser = await signIn(email);
    const id = sessionIdOf(browser);
    const createdAt = (await stored(id))!.created_at;
    const steps = portalSessionTtlSeconds / (20 * 60);
    for (let i = 1; i < steps; i += 1) {
      server.ctx.advance(minutes(20));
      expect(await userinfo(browser)).toBe(200);
    }
    // 11 h 40 min: the TTL is what is left of the 12 h, not 12 h from the last use.
    expect(await server.ctx.store.ttl(`session:${id}`)).toBeLessThanOrEqual(createdAt + portalSessionTtlSeconds - nowSeconds() + 1);
    server.ctx.advance(minutes(20));
    expect(await userinfo(browser)).toBe(401);
  });

  it('keeps a "remember me" session through 2 hours unused, and ends it at 12 hours', async () => {
    const { email } = await person();
    const remembered = await signIn(email, true);
    expect(remembered.isPersistent('nyckel_session')).toBe(true);
    server.ctx.advance(hours(2));
    expect(await userinfo(remembered)).toBe(200);
    expect(await status(remembered, '/api/accounts/sessions')).toBe(200);
    server.ctx.advance(hours(10));
    expect(await userinfo(remembered)).toBe(401);
  });

  it('writes last_seen at most once a minute, on the clock of ctx.now()', async () => {
    const { email } = await person();
    const browser = await signIn(email);
    const id = sessionIdOf(browser);
    const writes: string[] = [];
    const store = server.ctx.store;
    const record = (key: string) => key === `session:${id}` && writes.push(key);
    const set = store.set.bind(store);
    vi.spyOn(store, 'set').mockImplementation(async (key, value, ttl) => {
      record(key);
      return set(key, value, ttl);
    });
    const setIndexed = store.setIndexed.bind(store);
    vi.spyOn(store, 'setIndexed').mockImplementation(async (key, value, ttl, sets) => {
      record(key);
      return setIndexed(key, value, ttl, sets);
    });
    const replaceIfUnchanged = store.replaceIfUnchanged.bind(store);
    vi.spyOn(store, 'replaceIfUnchanged').mockImplementation(async (key, expected, value, ttl) => {
      record(key);
      return replaceIfUnchanged(key, expected, value, ttl);
    });

    // Real time passes too, between the clock's moves: margins of seconds, and ranges for times.
    for (let i = 0; i < 5; i += 1) expect(await userinfo(browser)).toBe(200);
    server.ctx.advance((lastSeenWriteSeconds - 10) * 1000);
    expect(await userinfo(browser)).toBe(200);
    expect(writes).toHaveLength(0);
    expect((await stored(id))!.last_seen).toBeUndefined();

    server.ctx.advance(11_000);
    const before = nowSeconds();
    for (let i = 0; i < 5; i += 1) expect(await userinfo(browser)).toBe(200);
    expect(writes).toHaveLength(1);
    const firstUse = (await stored(id))!.last_seen!;
    expect(firstUse).toBeGreaterThanOrEqual(before);
    expect(firstUse).toBeLessThanOrEqual(nowSeconds());

    server.ctx.advance(30_000);
    for (let i = 0; i < 3; i += 1) expect(await userinfo(browser)).toBe(200);
    expect(writes).toHaveLength(1);
    expect((await stored(id))!.last_seen).toBe(firstUse);

    server.ctx.advance(31_000);
    const later = nowSeconds();
    expect(await userinfo(browser)).toBe(200);
    expect(writes).toHaveLength(2);
    expect((await stored(id))!.last_seen).toBeGreaterThanOrEqual(later);
  });

  it('counts a silent renew through the provider session it signed in as use (the RP iframe carries no Nyckel cookie)', async () => {
    const { email } = await person();
    const browser = await signIn(email);
    const config = await client.discovery(new URL(server.issuer), 'rp-idle', 'rp-idle-secret-0123456789', undefined, { execute: [client.allowInsecureRequests] });
    const authorize = async (from: BrowserLike, prompt?: string) => {
      const { url } = await pkceAuthorization(config, { redirect_uri: REDIRECT_URI, scope: 'openid', ...(prompt ? { prompt } : {}) });
      return (await from.follow(url.toString())).url;
    };
    expect((await authorize(browser)).searchParams.get('code')).toBeTruthy();
    // The RP's iframe: the provider cookie (SameSite=None) only, not the Lax Nyckel cookie.
    const iframe = new BrowserLike(server.base);
    for (const [name, value] of browser.cookies) if (name !== 'nyckel_session') iframe.cookies.set(name, value);
    expect(iframe.cookies.size).toBeGreaterThan(0);

    for (let i = 0; i < 3; i += 1) {
      server.ctx.advance(minutes(20));
      expect((await authorize(iframe, 'none')).searchParams.get('code')).toBeTruthy();
    }
    // An hour on, the Nyckel session was used through the renewals only, and lives.
    expect(await userinfo(browser)).toBe(200);

    server.ctx.advance(minutes(31));
    expect((await authorize(iframe, 'none')).searchParams.get('error')).toBe('login_required');
    expect(await userinfo(browser)).toBe(401);
  });

  it.each([
    ['signing this session out', (_accountId: string, id: string) => destroyPortalSession(server.ctx, id)],
    ['signing the account out everywhere', (accountId: string) => destroyAccountPortalSessions(server.ctx, accountId)],
  ])('never writes a session back that %s ended while a request was recording its use', async (_name, signOut) => {
    const { id: accountId, email } = await person();
    const browser = await signIn(email);
    const id = sessionIdOf(browser);
    const store = server.ctx.store;
    const replaceIfUnchanged = store.replaceIfUnchanged.bind(store);
    let raced = false;
    vi.spyOn(store, 'replaceIfUnchanged').mockImplementation(async (key, expected, value, ttl) => {
      // The sign-out lands between the request's read of the session and its write of last_seen.
      if (key === `session:${id}` && !raced) {
        raced = true;
        await signOut(accountId, id);
      }
      return replaceIfUnchanged(key, expected, value, ttl);
    });
    server.ctx.advance(minutes(2));
    await userinfo(browser);
    expect(raced).toBe(true);
    expect(await stored(id)).toBeNull();
    expect(await userinfo(browser)).toBe(401);
  });
});
