import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../fixtures/accounts.ts';
import { createTestDb } from '../helpers/context.ts';
import { startMailServer, type MailServer } from '../helpers/mail-server.ts';
import { startRelay, type Relay } from '../helpers/tcp-relay.ts';
import { codeFrom } from '../login/journey.ts';
import { providerSessionCookie } from '../../src/oidc/provider.ts';
import { authorizationCode, authorizationRequest, BrowserLike, exchangeCode, registerRelyingParty, relyingParty, untilAvailable } from './journeys.ts';
import { startNyckel, type NyckelProcess } from './nyckel-process.ts';

const shared = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const password = 'Outage-passw0rd!';

/**
 * A real Nyckel process whose Redis goes away (a TCP relay is cut) and comes back. Calls that need
 * Redis fail closed with 503 in the error shape (`temporarily_unavailable` on oidc-provider's
 * endpoints); after Redis returns the same flow succeeds without restarting Nyckel. Cutting and
 * restoring the relay also stands in for a Redis restart that keeps its data: every connection
 * drops, nothing is lost, and nothing used or counted may come back to life.
 */
describe.skipIf(!shared)('Redis outage under a running Nyckel', () => {
  let nyckel: NyckelProcess;
  let relay: Relay;
  let drop: () => Promise<void>;
  let mail: MailServer;
  const redis = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');

  beforeAll(async () => {
    const database = await createTestDb();
    drop = database.drop;
    for (const email of ['outage@example.com', 'exchange@example.com', 'kept@example.com', 'counted@example.com', 'portal@example.com']) {
      await createAccount(database.db, { email, password });
    }
    await createAccount(database.db, { email: 'coded@example.com' });
    await registerRelyingParty(database.db);
    mail = await startMailServer();
    relay = await startRelay(redis);
    nyckel = await startNyckel({
      DATABASE_URL: database.databaseUrl!,
      REDIS_URL: `redis://127.0.0.1:${relay.port}`,
      STORE_PREFIX: `test:${randomBytes(6).toString('hex')}:`,
      SMTP_URL: mail.url,
    });
  }, 120_000);

  afterAll(async () => {
    await nyckel?.stop();
    await relay?.stop();
    await mail?.close();
    await drop?.();
  });

  async function post(path: string, body: unknown, cookies: Map<string, string>) {
    const response = await fetch(`${nyckel.base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: nyckel.base, cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(5000),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const index = pair!.indexOf('=');
      cookies.set(pair!.slice(0, index), pair!.slice(index + 1));
    }
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it('fails closed with 503 while Redis is gone, then the same flow succeeds once it is back', async () => {
    const cookies = new Map<string, string>();
    const start = await post('/auth/login/start', { email: 'outage@example.com' }, cookies);
    expect(start.body.state).toBe('CredentialsRequired');

    await relay.stop();
    const during = await post('/auth/login/verify-password', { session_id: start.body.session_id, email: 'outage@example.com', password }, cookies);
    expect(during.status).toBe(503);
    expect(during.body).toEqual({ detail: [{ type: expect.any(String), msg: expect.any(String) }] });
    expect((await fetch(`${nyckel.base}/readyz`)).status).toBe(503);

    relay = await startRelay(redis, relay.port);
    // Within 5 seconds of Redis returning, the flow that was interrupted completes.
    const deadline = Date.now() + 5000;
    let after = { status: 0, body: {} as Record<string, unknown> };
    while (Date.now() < deadline) {
      after = await post('/auth/login/verify-password', { session_id: start.body.session_id, email: 'outage@example.com', password }, cookies);
      if (after.status !== 503) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(after.body.state).toBe('Done');
    expect(nyckel.child.exitCode).toBeNull();
  });

  it('answers an authorization from a browser signed in to Nyckel alone with temporarily_unavailable at the redirect while Redis is gone, never 500', async () => {
    // Signed in at /login without an application: a Nyckel (portal) session, no provider session.
    const browser = new BrowserLike(nyckel.base);
    const start = await browser.json<{ state: string; session_id: string }>('/auth/login/start', { email: 'portal@example.com' });
    const done = await browser.json<{ state: string }>('/auth/login/verify-password', { session_id: start.body.session_id, email: 'portal@example.com', password });
    expect(done.body.state).toBe('Done');
    expect(browser.cookies.has(providerSessionCookie)).toBe(false);

    await relay.stop();
    try {
      // Interactive and silent alike: the login prompt's checks (the operator hand-off, the silent
      // sign-in from the Nyckel session) read the store; oidc-provider redirects its 503
      // temporarily_unavailable to the registered redirect URI, as RFC 6749 4.1.2.1 defines it.
      // The third comes after the address's budget found the store gone (it syncs every 100 ms):
      // the budget lets it through to that answer rather than answering it itself.
      for (const prompt of [undefined, 'none', undefined]) {
        if (prompt === undefined) await new Promise((resolve) => setTimeout(resolve, 300));
        const authorization = authorizationRequest();
        const response = await browser.request(prompt ? `${authorization.path}&prompt=${prompt}` : authorization.path);
        expect(response.status, `prompt=${prompt}`).toBe(303);
        const callback = new URL(response.headers.get('location')!);
        expect(callback.origin + callback.pathname).toBe(relyingParty.redirect_uri);
        expect(Object.fromEntries(callback.searchParams)).toEqual({
          error: 'temporarily_unavailable',
          error_description: expect.any(String),
          state: authorization.state,
          iss: `${nyckel.base}/oauth2`,
        });
      }
      expect(browser.cookies.has(providerSessionCookie)).toBe(false);
    } finally {
      relay = await startRelay(redis, relay.port);
      const { answer } = await untilAvailable(5000, async () => ({ status: (await fetch(`${nyckel.base}/readyz`)).status }));
      expect(answer.status).toBe(200);
    }
  });

  /** Cuts every connection to Redis and restores it: a restart that keeps the data. */
  async function restartRedis() {
    await relay.stop();
    relay = await startRelay(redis, relay.port);
    const { answer } = await untilAvailable(5000, async () => ({ status: (await fetch(`${nyckel.base}/readyz`)).status }));
    expect(answer.status).toBe(200);
  }

  it('fails a code exchange closed while Redis is gone (503 temporarily_unavailable) and redeems the same code once it is back', async () => {
    const browser = new BrowserLike(nyckel.base);
    const { code, authorization } = await authorizationCode(browser, 'exchange@example.com', password);

    await relay.stop();
    const during = await exchangeCode(nyckel.base, code, authorization.verifier);
    expect(during).toEqual({ status: 503, body: { error: 'temporarily_unavailable', error_description: expect.any(String) } });
    // Our own APIs answer in their shape; no call falls back to an unchecked path.
    const start = await browser.json('/auth/login/start', { email: 'exchange@example.com' });
    expect(start).toEqual({ status: 503, body: { detail: [{ type: 'service_unavailable', msg: expect.any(String) }] } });
    const userinfo = await fetch(`${nyckel.base}/oauth2/userinfo`, { headers: { authorization: 'Bearer made-up-token' } });
    expect(userinfo.status).toBe(503);

    relay = await startRelay(redis, relay.port);
    const { answer, afterMs } = await untilAvailable(5000, () => exchangeCode(nyckel.base, code, authorization.verifier));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ access_token: expect.any(String), id_token: expect.any(String), token_type: 'Bearer' });
    expect(afterMs).toBeLessThan(5000);
    // The outage did not consume the code, and redeeming it did: a replay is refused.
    expect(await exchangeCode(nyckel.base, code, authorization.verifier)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(nyckel.child.exitCode).toBeNull();
  });

  it('after a Redis restart with its data, a used authorization code stays used and its tokens stay valid', async () => {
    const browser = new BrowserLike(nyckel.base);
    const { code, authorization } = await authorizationCode(browser, 'kept@example.com', password);
    const tokens = await exchangeCode(nyckel.base, code, authorization.verifier);
    expect(tokens.status).toBe(200);

    await restartRedis();
    const bearer = { authorization: `Bearer ${tokens.body.access_token as string}` };
    const userinfo = await fetch(`${nyckel.base}/oauth2/userinfo`, { headers: bearer });
    expect([userinfo.status, await userinfo.json()]).toEqual([200, expect.objectContaining({ email: 'kept@example.com' })]);
    expect(await exchangeCode(nyckel.base, code, authorization.verifier)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // The replay revoked what the code had issued, as before the restart.
    expect((await fetch(`${nyckel.base}/oauth2/userinfo`, { headers: bearer })).status).toBe(401);
  });

  it('after a Redis restart with its data, a used email code stays used and the login session goes on', async () => {
    const browser = new BrowserLike(nyckel.base);
    const start = await browser.json<{ state: string; session_id: string }>('/auth/login/start', { email: 'coded@example.com' });
    expect(start.body.state).toBe('OTPRequired');
    const otp = codeFrom(await mail.waitFor('coded@example.com'));
    const verified = await browser.json<{ state: string }>('/auth/login/verify-otp', { session_id: start.body.session_id, email: 'coded@example.com', otp });
    expect(verified.body.state).toBe('AskedCreateCredential');

    await restartRedis();
    const replay = await browser.json<{ detail: { type: string }[] }>('/auth/login/verify-otp', { session_id: start.body.session_id, email: 'coded@example.com', otp });
    expect([replay.status, replay.body.detail[0]!.type]).toEqual([409, 'invalid_login_session_state']);
    // The session itself survived the restart: it goes on from where it was.
    const skipped = await browser.json<{ state: string }>('/auth/login/skip-create-password', { session_id: start.body.session_id });
    expect(skipped.body.state).toBe('Done');
  });

  it('after a Redis restart with its data, failure counters are kept: the tenth failure still locks the account', async () => {
    const fail = async () => {
      const browser = new BrowserLike(nyckel.base);
      const start = await browser.json<{ session_id: string }>('/auth/login/start', { email: 'counted@example.com' });
      return browser.json<{ detail: { type: string }[] }>('/auth/login/verify-password', { session_id: start.body.session_id, email: 'counted@example.com', password: 'Wrong-passw0rd!' });
    };
    for (let i = 0; i < 9; i += 1) expect((await fail()).status).toBe(401);
    await restartRedis();
    const tenth = await fail();
    expect([tenth.status, tenth.body.detail[0]!.type]).toEqual([423, 'account_locked']);
  });
});
