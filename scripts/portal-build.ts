import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const built = join(root, 'portal/dist/index.html');

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** True when portal/dist is missing or older than anything the build reads. */
export function portalBuildIsStale(): boolean {
  if (!existsSync(built)) return true;
  const builtAt = statSync(built).mtimeMs;
  return ['portal/src', 'portal/index.html', 'portal/vite.config.ts', 'src/login/steps.ts'].some(
    (source) => newestMtime(join(root, source)) > builtAt,
  );
}
