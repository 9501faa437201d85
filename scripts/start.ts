/**
 * `npm start`: builds the portal when its build is missing or older than its sources, then runs
 * the server (which migrates, seeds demo data in development, and listens).
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { portalBuildIsStale } from './portal-build.ts';

const root = resolve(import.meta.dirname, '..');

if (portalBuildIsStale()) {
  console.log('Building the portal…');
  const result = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const { main } = await import('../src/main.ts');
await main();
