import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../fixtures/accounts.ts';
import { createTestDb } from '../helpers/context.ts';
import { authorizationCode, authorizationRequest, BrowserLike, callbackOf, exchangeCode, registerRelyingParty, sharedSecrets, signInOnLoginPage } from './journeys.ts';
import { startNyckel, type NyckelProcess } from './nyckel-process.ts';

const shared = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const password = 'Restarted-passw0rd!';

/**
 * Nyckel restarted (SIGTERM, then a new process on the same address, as in a rolling deploy)
 * in the middle of an authorization: everything in flight lives in PostgreSQL and Redis, so the
 * flow resumes on the new process, and an authorization code stays single-use across it.
 */
describe.skipIf(!shared)('Nyckel restarted in the middle of an authorization', () => {
  let nyckel: NyckelProcess;
  let env: Record<string, string>;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const database = await createTestDb();
    drop = database.drop;
    await createAccount(database.db, { email: 'restart@example.com', password });
    await registerRelyingParty(database.db);
    env = { ...sharedSecrets(), DATABASE_URL: database.databaseUrl!, REDIS_URL: process.env.REDIS_URL!, STORE_PREFIX: `test:${randomBytes(6).toString('hex')}:` };
    nyckel = await startNyckel(env);
  }, 120_000);

  afterAll(async () => {
    await nyckel?.stop();
    await drop?.();
  });

  async function restart() {
    await nyckel.stop();
    nyckel = await startNyckel(env, nyckel.port);
  }

  it('resumes when the restart falls between /oauth2/authorize and the login interaction', async () => {
    const browser = new BrowserLike(nyckel.base);
    const authorization = authorizationRequest();
    const toInteraction = await browser.request(authorization.path);
    expect(toInteraction.status).toBe(303);
    const interaction = new URL(toInteraction.headers.get('location')!, nyckel.base);
    expect(interaction.pathname).toMatch(/^\/auth\/interaction\//);

    await restart();
    const { url: loginPage } = await browser.follow(interaction.toString());
    const done = await signInOnLoginPage(browser, loginPage, 'restart@example.com', password);
    const { url } = await browser.follow(done);
    const code = callbackOf(url, authorization);
    expect((await exchangeCode(nyckel.base, code, authorization.verifier)).status).toBe(200);
  });

  it('redeems a code issued before the restart once, and only once', async () => {
    const { code, authorization } = await authorizationCode(new BrowserLike(nyckel.base), 'restart@example.com', password);
    await restart();
    const first = await exchangeCode(nyckel.base, code, authorization.verifier);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ access_token: expect.any(String), id_token: expect.any(String) });
    expect(await exchangeCode(nyckel.base, code, authorization.verifier)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('refuses, after the restart, a code redeemed before it', async () => {
    const { code, authorization } = await authorizationCode(new BrowserLike(nyckel.base), 'restart@example.com', password);
    expect((await exchangeCode(nyckel.base, code, authorization.verifier)).status).toBe(200);
    await restart();
    expect(await exchangeCode(nyckel.base, code, authorization.verifier)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // An interaction the new process cannot find fails cleanly: back to /login, which says the session expired.
    const stale = await new BrowserLike(nyckel.base).request('/auth/interaction/no-such-interaction');
    expect([stale.status, stale.headers.get('location')]).toEqual([303, '/login?error=interaction_expired']);
  });
});
