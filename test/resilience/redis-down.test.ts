import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../fixtures/accounts.ts';
import { createTestDb } from '../helpers/context.ts';
import { startRelay } from '../helpers/tcp-relay.ts';
import { startNyckel, type NyckelProcess } from './nyckel-process.ts';

const shared = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const password = 'Outage-passw0rd!';

/**
 * A real Nyckel process whose Redis goes away mid-login (a TCP relay is cut) and comes back.
 * Calls that need Redis fail closed with 503 in the error shape; after Redis returns the same
 * flow succeeds without restarting Nyckel.
 */
describe.skipIf(!shared)('Redis outage under a running Nyckel', () => {
  let nyckel: NyckelProcess;
  let relay: Awaited<ReturnType<typeof startRelay>>;
  let drop: () => Promise<void>;
  const redis = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');

  beforeAll(async () => {
    const database = await createTestDb();
    drop = database.drop;
    await createAccount(database.db, { email: 'outage@example.com', password });
    relay = await startRelay(redis);
    nyckel = await startNyckel({
      DATABASE_URL: database.databaseUrl!,
      REDIS_URL: `redis://127.0.0.1:${relay.port}`,
      STORE_PREFIX: `test:${randomBytes(6).toString('hex')}:`,
    });
  }, 120_000);

  afterAll(async () => {
    await nyckel?.stop();
    await relay?.stop();
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
});
