/**
 * The first half of `npm start`: builds the portal and the server when their build is missing or
 * older than their sources. The second half runs the compiled server (dist/src/main.js), which
 * migrates, seeds demo data in development, and listens. The server runs compiled, not from its
 * TypeScript sources, in a process of its own: Node's type stripper would stay loaded in it for
 * nothing (~30 MB).
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { portalBuildIsStale, serverBuildIsStale } from './build-state.ts';

const root = resolve(import.meta.dirname, '..');

function run(what: string, script: string): void {
  console.log(`Building the ${what}…`);
  const result = spawnSync('npm', ['run', script, '--silent'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

if (portalBuildIsStale()) run('portal', 'build:portal');
if (serverBuildIsStale()) run('server', 'build:server');
