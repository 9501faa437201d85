import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../fixtures/accounts.ts';
import { createTestDb } from '../helpers/context.ts';
import { startNyckel, type NyckelProcess } from './nyckel-process.ts';

const shared = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const password = 'Scaled-out-passw0rd!';

/**
 * Two Nyckel processes on one PostgreSQL database and one Redis, as behind a load balancer: one
 * public issuer, shared secrets, each call sent to either instance. Needs the real services, so
 * it runs in the DATABASE_URL/REDIS_URL pass.
 */
describe.skipIf(!shared)('two Nyckel instances sharing PostgreSQL and Redis', () => {
  let a: NyckelProcess;
  let b: NyckelProcess;
  let drop: () => Promise<void>;
  let origin: string;

  beforeAll(async () => {
    const database = await createTestDb();
    drop = database.drop;
    await createAccount(database.db, { email: 'scaled@example.com', password });
    await createAccount(database.db, { email: 'locked-out@example.com', password });
    const env = {
      DATABASE_URL: database.databaseUrl!,
      REDIS_URL: process.env.REDIS_URL!,
      STORE_PREFIX: `test:${randomBytes(6).toString('hex')}:`,
      COOKIE_SECRETS: randomBytes(32).toString('base64url'),
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    };
    a = await startNyckel(env);
    origin = a.base;
    // Both serve the same public issuer, as two instances behind one load balancer do.
    b = await startNyckel({ ...env, ISSUER: `${origin}/oauth2` });
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await drop?.();
  });

  async function post(instance: NyckelProcess, path: string, body: unknown, cookies: Map<string, string>) {
    const response = await fetch(`${instance.base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin, cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
      body: JSON.stringify(body),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const index = pair!.indexOf('=');
      cookies.set(pair!.slice(0, index), pair!.slice(index + 1));
    }
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it('completes a login whose calls alternate between the instances', async () => {
    const cookies = new Map<string, string>();
    const start = await post(a, '/auth/login/start', { email: 'scaled@example.com' }, cookies);
    expect(start.body.state).toBe('CredentialsRequired');
    const done = await post(b, '/auth/login/verify-password', { session_id: start.body.session_id, email: 'scaled@example.com', password }, cookies);
    expect(done.body.state).toBe('Done');
    const ping = await post(a, '/auth/login/ping', {}, cookies);
    expect(ping.body.email).toBe('scaled@example.com');
  });

  it('shares lockout counters: failures on both instances add up', async () => {
    let last = { status: 0, body: {} as Record<string, unknown> };
    for (let i = 0; i < 10; i += 1) {
      const cookies = new Map<string, string>();
      const instance = i % 2 === 0 ? a : b;
      const start = await post(instance, '/auth/login/start', { email: 'locked-out@example.com' }, cookies);
      last = await post(instance, '/auth/login/verify-password', { session_id: start.body.session_id, email: 'locked-out@example.com', password: 'Wrong-passw0rd!' }, cookies);
    }
    expect(last.status).toBe(423);
    // The right password on either instance is now refused too.
    const cookies = new Map<string, string>();
    const start = await post(a, '/auth/login/start', { email: 'locked-out@example.com' }, cookies);
    expect(start.status).toBe(423);
  });
});
