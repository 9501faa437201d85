import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Response } from 'supertest';
import { registry } from '../../src/observability/metrics.ts';
import { StoreUnavailableError } from '../../src/store/store.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount } from '../login/fixtures.ts';
import { signInWithPassword, type Browser } from '../login/journey.ts';
import { arrive, atProvider, locationOf, startLogin, toProvider } from './journey.ts';
import { startUpstream, type TestUpstream } from './upstream-provider.ts';

/**
 * The Google and Microsoft routes are browser redirects: while Redis or PostgreSQL cannot be
 * reached they still answer a page the portal shows, a 303 to /login or the profile with
 * `error=service_unavailable`, never the JSON 503 the rest of the API answers.
 */
let t: TestApp;
let google: TestUpstream;

beforeAll(async () => {
  google = await startUpstream({ kind: 'google', nyckelOrigin: 'http://127.0.0.1:3000' });
  t = await startTestApp({ env: google.env });
});
afterAll(async () => {
  await t?.close();
  await google?.close();
});

const PASSWORD = 'Correct-Horse-42!';
const storeCalls = ['get', 'set', 'setIfAbsent', 'replaceIfUnchanged', 'getDel', 'del', 'incr', 'ttl', 'sadd', 'smembers', 'srem', 'setIndexed', 'claimAndWrite', 'getWithReference', 'scan'] as const;

/** Runs `during` with every store call failing as an unreachable Redis does (or only those `fails` picks). */
async function withStoreDown<T>(during: () => Promise<T>, fails: (call: string, key: unknown) => boolean = () => true): Promise<T> {
  const store = t.ctx.store as unknown as Record<(typeof storeCalls)[number], (...args: unknown[]) => Promise<unknown>>;
  const spies = storeCalls.map((call) => {
    const real = store[call].bind(store);
    return vi.spyOn(store, call).mockImplementation(async (...args: unknown[]) => {
      if (fails(call, args[0])) throw new StoreUnavailableError('store down (test)');
      return real(...args);
    });
  });
  try {
    return await during();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

/** A 303 (never JSON) to `path` with error=service_unavailable; answers its query. */
function unavailableAt(res: Response, path: string): URLSearchParams {
  expect(res.headers['content-type'] ?? '').not.toContain('json');
  const url = new URL(locationOf(res), 'http://nyckel.invalid');
  expect(url.pathname).toBe(path);
  expect(url.searchParams.get('error')).toBe('service_unavailable');
  return url.searchParams;
}

async function atCredentials(): Promise<{ browser: Browser; sessionId: string }> {
  const account = await createAccount(t.ctx.db, { password: PASSWORD });
  const browser = t.agent();
  return { browser, sessionId: await startLogin(browser, account.email) };
}

async function signedIn(): Promise<Browser> {
  const account = await createAccount(t.ctx.db, { password: PASSWORD });
  const browser = t.agent();
  expect((await signInWithPassword(browser, account.email, PASSWORD)).body.state).toBe('Done');
  return browser;
}

/** nyckel_dependency_errors_total{dependency="store"}: the metric an operator's alert watches. */
async function storeErrors(): Promise<number> {
  const { values } = await registry.getSingleMetric('nyckel_dependency_errors_total')!.get();
  return values.find((value) => value.labels.dependency === 'store')?.value ?? 0;
}

const loginPath = (sessionId: string) => `/auth/login/oauth/google?session_id=${encodeURIComponent(sessionId)}`;
const linkAfterCodePath = (sessionId: string) => `/auth/login/link/oauth/google?session_id=${encodeURIComponent(sessionId)}`;
const profilePath = '/auth/link/oauth/google?from=%2Fprofile%3Ftab%3Dmethods';

describe('starting a trip while the store is down', () => {
  it.each([
    ['sign-in', loginPath],
    ['link after the email code', linkAfterCodePath],
  ])('%s goes back to /login with service_unavailable', async (_name, path) => {
    const { browser, sessionId } = await atCredentials();
    const res = await withStoreDown(() => browser.get(path(sessionId)).redirects(0));
    expect(unavailableAt(res, '/login').has('session_id')).toBe(false);
  });

  it('keeps the login session when only the trip cannot be stored', async () => {
    const { browser, sessionId } = await atCredentials();
    const res = await withStoreDown(
      () => browser.get(loginPath(sessionId)).redirects(0),
      (call, key) => call === 'set' && String(key).startsWith('upstream:'),
    );
    expect(unavailableAt(res, '/login').get('session_id')).toBe(sessionId);
  });

  it('from the profile goes back to `from` with service_unavailable, counted as a store outage', async () => {
    const browser = await signedIn();
    const before = await storeErrors();
    const res = await withStoreDown(() => browser.get(profilePath).redirects(0));
    expect(unavailableAt(res, '/profile').get('tab')).toBe('methods');
    expect(await storeErrors()).toBe(before + 1);
  });
});

describe('the callback while the store is down (the trip cannot be read)', () => {
  it('of a sign-in goes to /login with service_unavailable', async () => {
    const { browser, sessionId } = await atCredentials();
    const callback = await atProvider(google, await toProvider(browser, loginPath(sessionId)), { account: { sub: `outage-${sessionId}` } });
    unavailableAt(await withStoreDown(() => arrive(browser, callback)), '/login');
  });

  it('of a link from the profile goes to the profile, as the browser’s cookie says', async () => {
    const browser = await signedIn();
    const callback = await atProvider(google, await toProvider(browser, profilePath), { account: { sub: `outage-profile-${Date.now()}` } });
    unavailableAt(await withStoreDown(() => arrive(browser, callback)), '/profile');
  });
});

describe('the callback while PostgreSQL is down', () => {
  it('of a sign-in goes back to /login with service_unavailable, and the login session resumes', async () => {
    const { browser, sessionId } = await atCredentials();
    const callback = await atProvider(google, await toProvider(browser, loginPath(sessionId)), { account: { sub: `outage-db-${sessionId}` } });
    // No connection can be had, as when the server is gone: knex gives up waiting for one.
    const down = vi.spyOn(t.ctx.db.client, 'acquireConnection').mockRejectedValue(Object.assign(new Error('Knex: Timeout acquiring a connection'), { name: 'KnexTimeoutError' }));
    try {
      expect(unavailableAt(await arrive(browser, callback), '/login').get('session_id')).toBe(sessionId);
    } finally {
      down.mockRestore();
    }
    const ping = await browser.get(`/auth/login/ping?session_id=${encodeURIComponent(sessionId)}`);
    expect(ping.body.session.state).toBe('CredentialsRequired');
  });
});
