import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The project's folder, the one holding package.json: two levels above a source file in src/ and
 * three above its compiled copy in dist/src/ (the production build, `npm run build`). Files the
 * server reads at run time (the built portal, the common-password list) are found from here, so
 * sources and build read the same ones.
 */
export function findProjectRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const projectRoot = findProjectRoot(import.meta.dirname);
