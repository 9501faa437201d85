import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.ts';

const root = resolve(import.meta.dirname, '../..');
const scratch = mkdtempSync(join(tmpdir(), 'nyckel-startup-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const password = 's3cret-db-password';

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `node src/main.ts`, the server's entry, with `env` on a minimal environment, until it exits. The
 * database is PostgreSQL on a port nothing listens on: no embedded database to start, so each run
 * takes about a second.
 */
async function runServer(env: Record<string, string>, whileRunning?: () => Promise<void>): Promise<Exit> {
  const closedDatabase = `postgres://nyckel:${password}@127.0.0.1:${await freePort()}/nyckel`;
  const child = spawn(process.execPath, ['src/main.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'development', DATA_DIR: scratch, HOST: '127.0.0.1', PORT: '0', DATABASE_URL: closedDatabase, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  const exited = new Promise<number | null>((done, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`node src/main.ts did not exit within 20 s: ${stderr}`));
    }, 20_000);
    child.on('exit', (exitCode) => {
      clearTimeout(timer);
      done(exitCode);
    });
  });
  if (whileRunning) await whileRunning();
  const code = await exited;
  return { code, stdout, stderr };
}

describe('the server failing to start', () => {
  it('on an unreachable DATABASE_URL exits 69 with one line naming DATABASE_URL and the cause, without its password', async () => {
    const { code, stdout, stderr } = await runServer({});
    expect(code).toBe(69);
    expect(stderr).toMatch(/^nyckel: cannot migrate the database at DATABASE_URL \(postgres:\/\/127\.0\.0\.1:\d+\/nyckel\): .*ECONNREFUSED[^\n]*\n$/);
    expect(stdout + stderr).not.toContain(password);
    // knex's own warnings go through the logger: JSON lines, no stack trace on stdout.
    for (const line of stdout.split('\n').filter(Boolean)) expect(() => JSON.parse(line), line).not.toThrow();
  }, 30_000);

  it('on a port in use exits 69 with one line naming HOST and PORT, before touching the database', async () => {
    const busy: Server = createServer();
    await new Promise<void>((listening) => busy.listen(0, '127.0.0.1', listening));
    const { port } = busy.address() as AddressInfo;
    try {
      // The database is unreachable too: had the server migrated first, that would be the message.
      const { code, stdout, stderr } = await runServer({ PORT: String(port) });
      expect(code).toBe(69);
      expect(stderr).toMatch(new RegExp(`^nyckel: cannot listen on 127\\.0\\.0\\.1:${port} \\(HOST, PORT\\): [^\\n]*EADDRINUSE[^\\n]*\\n$`));
      expect(stdout).toBe('');
    } finally {
      await new Promise((closed) => busy.close(closed));
    }
  }, 30_000);

  it('while it migrates: /healthz answers 200 (alive), /readyz and the rest 503', async () => {
    // A database that lets the server connect (authentication ok, ready for a query) and then
    // answers nothing: the migrations wait for it for as long as the test asks. (One that never
    // finished the handshake ended them after the 5 s connect timeout, which a loaded machine
    // could spend before the test's requests got in.) Closing its sockets ends the run.
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.once('data', () => {
        // AuthenticationOk ('R', length 8, code 0), then ReadyForQuery ('Z', length 5, idle).
        socket.write(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0, 0x5a, 0, 0, 0, 5, 0x49]));
      });
    });
    await new Promise<void>((listening) => silent.listen(0, '127.0.0.1', listening));
    const port = await freePort();
    const answers: Record<string, number> = {};
    try {
      await runServer({ PORT: String(port), DATABASE_URL: `postgres://nyckel:${password}@127.0.0.1:${(silent.address() as AddressInfo).port}/nyckel` }, async () => {
        const get = async (path: string) => (await fetch(`http://127.0.0.1:${port}${path}`)).status;
        for (let tries = 0; tries < 100; tries += 1) {
          const status = await get('/healthz').catch(() => undefined);
          if (status !== undefined) {
            answers['/healthz'] = status;
            break;
          }
          await new Promise((wait) => setTimeout(wait, 50));
        }
        answers['/readyz'] = await get('/readyz');
        answers['/login'] = await get('/login');
        for (const socket of sockets) socket.destroy();
      });
    } finally {
      silent.close();
    }
    expect(answers).toEqual({ '/healthz': 200, '/readyz': 503, '/login': 503 });
  }, 30_000);
});
