import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');

/** The compiled server `npm start` and the Docker image run (`npm run build:server`, tsconfig.build.json). */
export const serverEntry = 'dist/src/main.js';

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** True when `built` is missing or older than anything under `sources`. */
function isStale(built: string, sources: string[]): boolean {
  if (!existsSync(join(root, built))) return true;
  const builtAt = statSync(join(root, built)).mtimeMs;
  return sources.some((source) => newestMtime(join(root, source)) > builtAt);
}

/** True when portal/dist is missing or older than anything the build reads. */
export function portalBuildIsStale(): boolean {
  return isStale('portal/dist/index.html', ['portal/src', 'portal/index.html', 'portal/vite.config.ts', 'src/login/steps.ts']);
}

/** True when the compiled server (dist/) is missing or older than anything it is compiled from. */
export function serverBuildIsStale(): boolean {
  return isStale(serverEntry, ['src', 'migrations', 'seeds', 'tsconfig.json', 'tsconfig.build.json']);
}
