import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

/**
 * `npm run bench -- tokens` compiles its servers with tsconfig.bench.json, which names only the
 * entry files: whatever src/ needs must be reachable from their imports (a declaration file only
 * `include` picks up is not). The typecheck of tsconfig.json would not see such a gap.
 */
describe('the tokens bench', () => {
  it('compiles with its own tsconfig', () => {
    const tsc = resolve(root, 'node_modules/typescript/bin/tsc');
    const run = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.bench.json', '--noEmit'], { cwd: root, encoding: 'utf8', timeout: 120_000 });
    expect(`${run.stdout}${run.stderr}`).toBe('');
    expect(run.status).toBe(0);
  }, 130_000);
});
