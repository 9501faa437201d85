import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { freePort } from '../helpers/server.ts';

const root = resolve(import.meta.dirname, '../..');


export interface NyckelProcess {
  child: ChildProcess;
  base: string;
  port: number;
  exited: Promise<number | null>;
  stop(): Promise<void>;
  /** Resident memory of the process in bytes (VmRSS from /proc). */
  rss(): number;
}

/**
 * A real Nyckel process (`node src/main.ts`) on a free loopback port (or `port`, to restart one
 * in place), started with `env` on top of a minimal environment and `nodeFlags` on node's command
 * line (V8 flags such as `--heap-growing-percent` are refused in NODE_OPTIONS), resolved once it
 * logs that it listens.
 */
export async function startNyckel(env: Record<string, string>, port?: number, nodeFlags: readonly string[] = []): Promise<NyckelProcess> {
  port ??= await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [...nodeFlags, 'src/main.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'development', PORT: String(port), HOST: '127.0.0.1', ISSUER: `${base}/oauth2`, SEED_DEMO: 'false', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error('Nyckel did not start within 60 s')), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Nyckel is listening')) {
        clearTimeout(timer);
        ready();
      }
    });
    child.on('exit', (code) => fail(new Error(`Nyckel exited early with ${code}: ${stderr.slice(0, 500)}`)));
  });
  return {
    child,
    base,
    port,
    exited,
    rss() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) * 1024;
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
