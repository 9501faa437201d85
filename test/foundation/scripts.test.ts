import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(join(tmpdir(), 'nyckel-scripts-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `npm run <script> -- <args>` on the embedded database in a scratch DATA_DIR, as a developer runs
 * it. Each run starts PGlite on disk (a few seconds under load), hence the longer timeouts.
 */
function npmRun(script: string, args: string[]): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'development', DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const child = spawn('npm', ['run', '--silent', script, '--', ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })));
}

// The scripts always run on the embedded database here, so a run against DATABASE_URL would only
// repeat this (slow: PGlite on disk) file.
describe.skipIf(process.env.DATABASE_URL)('npm run client', () => {
  it('registers a confidential client, shows its generated secret once, and lists it', async () => {
    const added = await npmRun('client', ['add', 'cli-test', '--redirect', 'http://localhost:9999/callback', '--name', 'CLI test']);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('Client cli-test saved.');
    expect(added.stdout).toMatch(/^client_secret: [A-Za-z0-9_-]{43} \(shown once\)$/m);

    const listed = await npmRun('client', ['list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('cli-test\tclient_secret_basic\thttp://localhost:9999/callback');
    expect(listed.stdout).not.toContain('client_secret:');
  }, 60_000);

  it('refuses a client without a valid redirect URI, naming the field', async () => {
    const refused = await npmRun('client', ['add', 'cli-bad', '--redirect', 'not a url']);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toMatch(/redirect_uris/);
    expect(refused.stdout).not.toContain('saved');
  }, 60_000);
});
