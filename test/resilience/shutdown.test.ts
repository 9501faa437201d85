import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(join(tmpdir(), 'nyckel-shutdown-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const port = (probe.address() as { port: number }).port;
  await new Promise((done) => probe.close(done));
  return port;
}

/** A real Nyckel process (embedded database, no demo data) and a promise of its exit. */
async function startNyckel(port: number): Promise<{ child: ChildProcess; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, ['src/main.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'development', PORT: String(port), HOST: '127.0.0.1', ISSUER: `http://127.0.0.1:${port}/oauth2`, DATA_DIR: dataDir, SEED_DEMO: 'false', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error('Nyckel did not start within 60 s')), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Nyckel is listening')) {
        clearTimeout(timer);
        ready();
      }
    });
    child.on('exit', (code) => fail(new Error(`Nyckel exited early with ${code}`)));
  });
  return { child, exited };
}

describe('graceful shutdown of a real Nyckel process', () => {
  it('on SIGTERM finishes the request in flight, refuses new connections and exits 0 within 10 s', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const { child, exited } = await startNyckel(port);

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
