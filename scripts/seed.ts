/**
 * `npm run seed`: the demo data (refused in production).
 * `npm run seed -- --accounts 100000`: also that many generated accounts (search benchmark, load tests).
 */
import { parseArgs } from 'node:util';
import { seedDemo } from '../seeds/demo.ts';
import { generateAccounts, progressBar } from '../seeds/generate-accounts.ts';
import { withContext } from './cli-context.ts';

const usage = 'usage: npm run seed [-- --accounts <0..10000000>]';
let accounts = 0;
try {
  const { values } = parseArgs({ options: { accounts: { type: 'string' } } });
  accounts = values.accounts === undefined ? 0 : Number(values.accounts);
} catch {
  accounts = Number.NaN;
}
if (!Number.isInteger(accounts) || accounts < 0 || accounts > 10_000_000) {
  console.error(usage);
  process.exit(64);
}

await withContext(async (ctx) => {
  if (ctx.config.env === 'production') {
    console.error('nyckel: demo data is refused in production');
    process.exitCode = 1;
    return;
  }
  console.log((await seedDemo(ctx)) ? 'Demo data seeded.' : 'Demo data already present.');
  if (accounts > 0) {
    const started = performance.now();
    const created = await generateAccounts(ctx.db, accounts, { onProgress: progressBar('accounts') });
    console.log(`${created} generated accounts added (${accounts} asked) in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
  }
});
