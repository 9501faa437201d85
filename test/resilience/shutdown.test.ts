import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startNyckel } from './nyckel-process.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'nyckel-shutdown-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('graceful shutdown of a real Nyckel process', () => {
  it('on SIGTERM finishes the request in flight, refuses new connections and exits 0 within 10 s', async () => {
    // Embedded database: this test is about the process, not about shared services.
    const { child, base, exited } = await startNyckel({ DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '' });

    // A reset request always takes at least 100 ms (its timing floor): it is in flight when
    // the signal arrives.
    const inFlight = fetch(`${base}/auth/reset/request`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base },
      body: JSON.stringify({ email: 'nobody@example.com' }),
    });
    await new Promise((done) => setTimeout(done, 30));
    const signalled = Date.now();
    child.kill('SIGTERM');

    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'sent' });

    const code = await exited;
    expect(code).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(10_000);
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  }, 90_000);
});
