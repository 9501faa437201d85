import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { newTotpSecret, totpCodeAt } from '../../src/credentials/totp/totp.ts';
import type { Db } from '../../src/db/knex.ts';
import { createAccount } from '../fixtures/accounts.ts';
import { createTestDb } from '../helpers/context.ts';
import { startRelay, type Relay } from '../helpers/tcp-relay.ts';
import { authorizationCode, BrowserLike, exchangeCode, refreshGrant, registerRelyingParty, sharedSecrets, untilAvailable } from './journeys.ts';
import { startNyckel, type NyckelProcess } from './nyckel-process.ts';

const shared = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const password = 'Postgres-gone-passw0rd!';

/**
 * A real Nyckel process whose PostgreSQL connection goes through a TCP relay the test cuts: before
 * a call, or in the middle of a transaction (the relay drops the statement that would complete
 * it). Calls that need the database answer 503 in the error shape, nothing is half-written, and
 * Nyckel's connection pool recovers by itself when the database returns.
 */
describe.skipIf(!shared)('PostgreSQL outage under a running Nyckel', () => {
  let nyckel: NyckelProcess;
  let relay: Relay;
  let db: Db;
  let drop: () => Promise<void>;
  let target: URL;
  let operator: BrowserLike;

  beforeAll(async () => {
    const database = await createTestDb();
    ({ db, drop } = database);
    target = new URL(database.databaseUrl!);
    const secrets = sharedSecrets();
    for (const email of ['before@example.com', 'during@example.com', 'tokens@example.com']) await createAccount(db, { email, password });
    await registerRelyingParty(db);
    const operatorId = await createAccount(db, { email: 'operator@example.com', password });
    const totpSecret = newTotpSecret();
    await db('credentials').insert({ account_id: operatorId, type: 'totp', secret: createSecretBox(Buffer.from(secrets.ENCRYPTION_KEY, 'base64')).seal(totpSecret) });
    await db('operator_roles').insert({ account_id: operatorId, role: 'admin' });

    relay = await startRelay(target);
    const viaRelay = new URL(target);
    viaRelay.port = String(relay.port);
    nyckel = await startNyckel({
      ...secrets,
      DATABASE_URL: viaRelay.toString(),
      REDIS_URL: process.env.REDIS_URL!,
      STORE_PREFIX: `test:${randomBytes(6).toString('hex')}:`,
    });

    // The operator signs in with a password and an authenticator code, as the console requires.
    operator = new BrowserLike(nyckel.base);
    const start = await operator.json<{ session_id: string }>('/auth/login/start', { email: 'operator@example.com' });
    const mfa = await operator.json<{ state: string }>('/auth/login/verify-password', { session_id: start.body.session_id, email: 'operator@example.com', password });
    expect(mfa.body.state).toBe('MfaRequired');
    const done = await operator.json<{ state: string }>('/auth/login/verify-mfa', { session_id: start.body.session_id, totp_code: await totpCodeAt(totpSecret, new Date()) });
    expect(done.body.state).toBe('Done');
  }, 120_000);

  afterAll(async () => {
    await nyckel?.stop();
    await relay?.stop();
    await drop?.();
  });

  async function restoreDatabase() {
    relay = await startRelay(target, relay.port);
  }

  const serviceUnavailable = { detail: [{ type: 'service_unavailable', msg: expect.any(String) }] };

  it('answers 503 mid-sign-in while PostgreSQL is gone, and the same step succeeds once it is back', async () => {
    const browser = new BrowserLike(nyckel.base);
    const start = await browser.json<{ state: string; session_id: string }>('/auth/login/start', { email: 'before@example.com' });
    expect(start.body.state).toBe('CredentialsRequired');

    await relay.stop();
    const verify = () => browser.json<{ state?: string }>('/auth/login/verify-password', { session_id: start.body.session_id, email: 'before@example.com', password });
    const during = await verify();
    expect(during).toEqual({ status: 503, body: serviceUnavailable });
    expect((await fetch(`${nyckel.base}/readyz`)).status).toBe(503);

    await restoreDatabase();
    // The pool drops its dead connections and opens new ones: no restart of Nyckel.
    const { answer, afterMs } = await untilAvailable(10_000, verify);
    expect(answer.body.state).toBe('Done');
    expect(afterMs).toBeLessThan(5000);
    expect(nyckel.child.exitCode).toBeNull();
  });

  it('cut while a sign-in is recorded: 503, and the sign-in is recorded whole or not at all', async () => {
    const browser = new BrowserLike(nyckel.base);
    const start = await browser.json<{ session_id: string }>('/auth/login/start', { email: 'during@example.com' });
    // The statement that records the sign-in (last login, credential use, audit event) never arrives.
    const cut = relay.cutOn('insert into audit_events');
    const during = await browser.json('/auth/login/verify-password', { session_id: start.body.session_id, email: 'during@example.com', password });
    await cut;
    expect(during).toEqual({ status: 503, body: serviceUnavailable });
    const account = await db('accounts').where({ email: 'during@example.com' }).first('id', 'last_login_at');
    expect(account.last_login_at).toBeNull();
    expect(await db('audit_events').where({ action: 'login.succeeded', target_account_id: account.id }).count({ n: '*' })).toEqual([{ n: '0' }]);

    // The unrecorded sign-in did not happen: its login session was put back, so the person's retry
    // of the same step succeeds once the database is back.
    await restoreDatabase();
    const { answer: done } = await untilAvailable(10_000, () =>
      browser.json<{ state: string }>('/auth/login/verify-password', { session_id: start.body.session_id, email: 'during@example.com', password }),
    );
    expect(done.body.state).toBe('Done');
    expect((await db('accounts').where({ id: account.id }).first('last_login_at')).last_login_at).not.toBeNull();
    expect(await db('audit_events').where({ action: 'login.succeeded', target_account_id: account.id }).count({ n: '*' })).toEqual([{ n: '1' }]);
  });

  it('cut after a token request used its code or refresh token (the ID token’s tenants): 503, and the retry gets the tokens, not a replay’s revocation', async () => {
    const browser = new BrowserLike(nyckel.base);
    const { code, authorization } = await authorizationCode(browser, 'tokens@example.com', password, 'openid email offline_access tenants');
    // oidc-provider uses the code, then reads the account's tenants for the ID token: that read never arrives.
    let cut = relay.cutOn('from "tenant_access"');
    const during = await exchangeCode(nyckel.base, code, authorization.verifier);
    await cut;
    expect(during.status).toBe(503);
    expect(during.body).toMatchObject({ error: 'temporarily_unavailable' });
    await restoreDatabase();
    const { answer: exchanged } = await untilAvailable(10_000, () => exchangeCode(nyckel.base, code, authorization.verifier));
    expect(exchanged.status).toBe(200);
    expect(exchanged.body.refresh_token).toEqual(expect.any(String));

    cut = relay.cutOn('from "tenant_access"');
    const refreshToken = exchanged.body.refresh_token as string;
    const refreshDuring = await refreshGrant(nyckel.base, refreshToken);
    await cut;
    expect(refreshDuring.status).toBe(503);
    await restoreDatabase();
    const { answer: refreshed } = await untilAvailable(10_000, () => refreshGrant(nyckel.base, refreshToken));
    expect(refreshed.status).toBe(200);
    // The grant lives: the first access token still opens userinfo.
    const userinfo = await fetch(`${nyckel.base}/oauth2/userinfo`, { headers: { authorization: `Bearer ${exchanged.body.access_token as string}` } });
    expect(userinfo.status).toBe(200);
  });

  it('cut in the middle of an operator change: 503, no half-written rows, and the change goes through once the database is back', async () => {
    const slug = 'halfwritten';
    // The tenant row is inserted inside the transaction; the audit row that completes it is dropped.
    const cut = relay.cutOn('insert into "audit_events"');
    const during = await operator.json('/api/tenants', { name: 'Half Written', slug });
    await cut;
    expect(during).toEqual({ status: 503, body: serviceUnavailable });
    expect(await db('tenants').where({ slug }).count({ n: '*' })).toEqual([{ n: '0' }]);
    expect(await db('audit_events').where({ action: 'operator.tenant.created' }).count({ n: '*' })).toEqual([{ n: '0' }]);

    await restoreDatabase();
    const { answer } = await untilAvailable(10_000, () => operator.json<{ id: string }>('/api/tenants', { name: 'Half Written', slug }));
    expect(answer.status).toBe(201);
    expect(await db('tenants').where({ slug }).count({ n: '*' })).toEqual([{ n: '1' }]);
    expect(await db('audit_events').where({ action: 'operator.tenant.created', tenant_id: answer.body.id }).count({ n: '*' })).toEqual([{ n: '1' }]);
  });
});
