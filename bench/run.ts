/**
 * `npm run bench -- <name> [...]`: runs bench/<name>.bench.ts in its own Node 24 process with one
 * libuv thread (UV_THREADPOOL_SIZE=1), so hashing work runs on one core in the flow and in the
 * raw baseline alike. Uses DATABASE_URL / REDIS_URL when set, the embedded defaults otherwise.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const available = readdirSync(import.meta.dirname)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.replace('.bench.ts', ''));
const names = process.argv.slice(2);
if (names.length === 0 || names.some((n) => !available.includes(n))) {
  console.error(`usage: npm run bench -- <${available.join('|')}>`);
  process.exit(64);
}
let failed = false;
for (const name of names) {
  const file = join(import.meta.dirname, `${name}.bench.ts`);
  if (!existsSync(file)) continue;
  const result = spawnSync(process.execPath, [file], {
    stdio: 'inherit',
    env: { ...process.env, UV_THREADPOOL_SIZE: '1', LOG_LEVEL: 'silent' },
  });
  failed ||= result.status !== 0;
}
process.exit(failed ? 1 : 0);
