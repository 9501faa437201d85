import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirLockedError, lockDataDir, lockFileName, removeStaleLock } from '../../src/db/data-dir-lock.ts';
import { createDb } from '../../src/db/knex.ts';

const root = resolve(import.meta.dirname, '../..');
const scratch = mkdtempSync(join(tmpdir(), 'nyckel-lock-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let dirs = 0;
/** A fresh DATA_DIR. */
function dataDir(): string {
  const dir = join(scratch, `data-${(dirs += 1)}`);
  mkdirSync(dir);
  return dir;
}

/** A pid no process has: one of a child that has exited (pids are not reused that fast). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

const lockedMessage = (dir: string, pid: number) =>
  `Nyckel is already running with the embedded database in ${dir} (pid ${pid}). Stop it first, ` +
  'or set DATABASE_URL to a PostgreSQL server: the embedded database can be opened by one process at a time. ' +
  `(If process ${pid} is not Nyckel, delete ${join(dir, lockFileName)}.)`;

describe('the lock of an embedded data directory', () => {
  it('refuses a second open of the same directory while the first is open, naming the directory and its pid', async () => {
    const dir = dataDir();
    const first = await createDb({ dataDir: dir });
    await first.raw('select 1');
    expect(readFileSync(join(dir, lockFileName), 'utf8')).toMatch(new RegExp(`^${process.pid}\n[0-9a-f]{16}\n$`));

    const second = createDb({ dataDir: dir });
    await expect(second).rejects.toThrow(DataDirLockedError);
    await expect(second).rejects.toThrow(lockedMessage(dir, process.pid));

    await first.destroy();
    expect(existsSync(join(dir, lockFileName))).toBe(false);
    const reopened = await createDb({ dataDir: dir });
    expect((await reopened.raw('select 1 as one')).rows).toEqual([{ one: 1 }]);
    await reopened.destroy();
  }, 60_000);

  it('is released by closing a database that never ran a query', async () => {
    const dir = dataDir();
    await (await createDb({ dataDir: dir })).destroy();
    expect(existsSync(join(dir, lockFileName))).toBe(false);
  }, 60_000);

  it('takes over a lock left by a process that is gone', () => {
    const dir = dataDir();
    writeFileSync(join(dir, lockFileName), `${deadPid()}\n`);
    const release = lockDataDir(dir);
    expect(readFileSync(join(dir, lockFileName), 'utf8')).toMatch(new RegExp(`^${process.pid}\n[0-9a-f]{16}\n$`));
    release();
    expect(existsSync(join(dir, lockFileName))).toBe(false);
  });

  it('takes over a lock naming its own pid that it does not hold (a restarted container gets the same pid)', () => {
    const dir = dataDir();
    writeFileSync(join(dir, lockFileName), `${process.pid}\n`);
    const release = lockDataDir(dir);
    expect(() => lockDataDir(dir)).toThrow(DataDirLockedError);
    release();
  });

  it('of two processes taking over one stale lock at once, the second leaves the lock the first placed', () => {
    const dir = dataDir();
    const path = join(dir, lockFileName);
    const stale = `${deadPid()}\n`;
    writeFileSync(path, stale);
    // Both read it and found it stale; the first removed it and placed its own lock meanwhile.
    const fresh = `${process.ppid}\n0123456789abcdef\n`;
    writeFileSync(path, fresh);

    removeStaleLock(path, stale);
    expect(readFileSync(path, 'utf8')).toBe(fresh);
    expect(() => lockDataDir(dir)).toThrow(lockedMessage(dir, process.ppid));
    expect(readdirSync(dir)).toEqual([lockFileName]);

    // The stale file itself is removed, and the directory is then free.
    writeFileSync(path, stale);
    removeStaleLock(path, stale);
    expect(existsSync(path)).toBe(false);
    lockDataDir(dir)();
  });

  it('takes over an empty lock file (its process died before writing its pid)', () => {
    const dir = dataDir();
    writeFileSync(join(dir, lockFileName), '');
    lockDataDir(dir)();
    expect(existsSync(join(dir, lockFileName))).toBe(false);
  });

  it('does not apply to in-memory databases, which tests open many of', async () => {
    const [a, b] = await Promise.all([createDb({}), createDb({})]);
    await Promise.all([a.destroy(), b.destroy()]);
  }, 60_000);
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], dir: string): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'development', DATA_DIR: dir, LOG_LEVEL: 'warn', PORT: '0' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })));
}

describe('a second process on an embedded data directory in use', () => {
  const dir = dataDir();
  // This test process stands for the running server: it holds the directory.
  const release = lockDataDir(dir);
  afterAll(release);

  it.each([
    ['npm run client', 'npm', ['run', '--silent', 'client', '--', 'add', 'lost-rp', '--redirect', 'http://localhost:9999/cb']],
    ['npm run keys', 'npm', ['run', '--silent', 'keys', '--', 'rotate']],
    ['npm run operator', 'npm', ['run', '--silent', 'operator', '--', 'list']],
    ['npm run migrate', 'npm', ['run', '--silent', 'migrate']],
    ['the server', process.execPath, ['src/main.ts']],
  ])('%s refuses with one line naming the directory and the pid, exit 75, no stack trace', async (_name, command, args) => {
    const refused = await run(command, args as string[], dir);
    expect(refused.code).toBe(75);
    expect(refused.stderr).toBe(`nyckel: ${lockedMessage(dir, process.pid)}\n`);
    expect(refused.stdout).toBe('');
  }, 60_000);
});
