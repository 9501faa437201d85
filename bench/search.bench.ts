/**
 * Account search over 100,000 generated accounts: the operator console's search service
 * (searchAccounts: the trigram-indexed ILIKE on name and email, then the batched credential and
 * tenant-access queries), called in-process as the route calls it. Runs on a fresh database:
 * in-memory PGlite by default, a throw-away database on DATABASE_URL when set.
 *
 * Target: median < 50 ms. Also prints p95, per-term medians and the time to generate the rows
 * (which must stay well under a minute on PGlite).
 */
import { searchAccounts } from '../src/admin/accounts/account-listing.service.ts';
import { generateAccounts, progressBar } from '../seeds/generate-accounts.ts';
import { createTestContext } from '../test/helpers/context.ts';

const accountCount = Number(process.env.BENCH_ACCOUNTS ?? 100_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 20);

/** What operators type: part of a name, a whole name, part of an email, a domain, a rare and a missing term. */
const terms = [
  'lindqvist',
  'Maja',
  'anna anders',
  'Sofia Berg',
  'bulk-0042',
  'bulk-0099117',
  'nordictalent',
  'partner.test',
  'son',
  'qzxv',
  'fredriksson@',
  'ELSA',
  'Yusuf',
  'an',
];

const ctx = await createTestContext();
const generationStarted = performance.now();
await generateAccounts(ctx.db, accountCount, { onProgress: progressBar('generating accounts') });
const generationSeconds = (performance.now() - generationStarted) / 1000;

// Warm-up: plans, caches, JIT.
for (const term of terms) await searchAccounts(ctx, term);

const samples: number[] = [];
const perTerm = new Map<string, number[]>(terms.map((term) => [term, []]));
const hits = new Map<string, number>();
for (let round = 0; round < rounds; round += 1) {
  for (const term of terms) {
    const started = performance.now();
    const found = await searchAccounts(ctx, term);
    const ms = performance.now() - started;
    samples.push(ms);
    perTerm.get(term)!.push(ms);
    hits.set(term, found.length);
  }
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};
const median = quantile(samples, 0.5);
const p95 = quantile(samples, 0.95);
const dbName = process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite';

console.log(`search bench: ${accountCount.toLocaleString('en')} accounts on ${dbName}; ${samples.length} searches (${terms.length} terms × ${rounds} rounds)`);
console.log(`  generating the accounts took ${generationSeconds.toFixed(1)} s`);
for (const [term, times] of perTerm) {
  console.log(`  ${JSON.stringify(term).padEnd(16)} ${String(hits.get(term)).padStart(3)} hits   median ${quantile(times, 0.5).toFixed(1).padStart(6)} ms`);
}
console.log(`  median ${median.toFixed(1)} ms (target < 50 ms) ${median < 50 ? 'PASS' : 'MISS'}; p95 ${p95.toFixed(1)} ms`);

await ctx.dispose();
process.exit(0);
