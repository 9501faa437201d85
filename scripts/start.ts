/**
 * `npm start`: builds the portal when its build is missing or older than its sources, then runs
 * the server (which migrates, seeds demo data in development, and listens).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const built = join(root, 'portal/dist/index.html');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const stale =
  !existsSync(built) ||
  newestMtime(join(root, 'portal/src')) > statSync(built).mtimeMs ||
  statSync(join(root, 'portal/index.html')).mtimeMs > statSync(built).mtimeMs;

if (stale) {
  console.log('Building the portal…');
  const result = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const { main } = await import('../src/main.ts');
await main();
