import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `npm run <script> -- <args>` on the embedded database of the scratch `dataDir`, as a developer
 * runs it (never DATABASE_URL or REDIS_URL). Each run starts PGlite on disk, a few seconds under
 * load: give such tests long timeouts. `extraEnv` is set on top (a DATABASE_URL, say).
 */
export function npmRun(dataDir: string, script: string, args: string[], extraEnv: Record<string, string> = {}): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'development', DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  Object.assign(env, extraEnv);
  const child = spawn('npm', ['run', '--silent', script, '--', ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })));
}
