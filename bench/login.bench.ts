/**
 * Full password sign-ins per second over HTTP (start → verify-password → Done, through the
 * store and the database) against raw argon2id verifications per second, in the same process,
 * with the same concurrency and one hashing thread. Target: the flow reaches ≥ 85% of raw.
 */
import { randomBytes } from 'node:crypto';
import { verify } from '@node-rs/argon2';
import { hashPassword } from '../src/credentials/password/hashing.ts';
import { startTestServer } from '../test/helpers/server.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 4);
const accounts = 200;
const password = 'Bench-passw0rd!';

const server = await startTestServer({ env: { TRUST_PROXY: '1' } });
const hash = await hashPassword(password);
await server.ctx.db.batchInsert(
  'accounts',
  Array.from({ length: accounts }, (_, i) => ({ email: `bench${i}@example.com`, name: `Bench ${i}`, is_user: true, email_verified: true })),
);
const ids: { id: string }[] = await server.ctx.db('accounts').select('id');
await server.ctx.db.batchInsert('credentials', ids.map(({ id }) => ({ account_id: id, type: 'password', secret: hash })));

async function during(run: () => Promise<void>): Promise<number> {
  let done = 0;
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        await run();
        done += 1;
      }
    }),
  );
  return done / seconds;
}

let next = 0;
async function signIn(): Promise<void> {
  const email = `bench${next++ % accounts}@example.com`;
  // A different client address per sign-in, as behind a load balancer: the per-IP budget is for
  // abuse from one address, not for a benchmark.
  const ip = `10.${randomBytes(3).join('.')}`;
  const headers = { 'content-type': 'application/json', origin: server.base, 'x-forwarded-for': ip };
  const start = await fetch(`${server.base}/auth/login/start`, { method: 'POST', headers, body: JSON.stringify({ email }) });
  const cookie = start.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const { session_id } = (await start.json()) as { session_id: string };
  const done = await fetch(`${server.base}/auth/login/verify-password`, {
    method: 'POST',
    headers: { ...headers, cookie },
    body: JSON.stringify({ session_id, email, password }),
  });
  const body = (await done.json()) as { state?: string };
  if (body.state !== 'Done') throw new Error(`sign-in failed: ${done.status} ${JSON.stringify(body)}`);
}

// Warm both paths before measuring.
for (let i = 0; i < 5; i += 1) {
  await verify(hash, password);
  await signIn();
}

// Alternating rounds: both sides see the same background load on a shared machine.
const rounds = 4;
let raw = 0;
let flow = 0;
for (let round = 0; round < rounds; round += 1) {
  raw += (await during(async () => {
    if (!(await verify(hash, password))) throw new Error('raw verify failed');
  })) / rounds;
  flow += (await during(signIn)) / rounds;
}
const ratio = flow / raw;

console.log(`login bench (${server.ctx.store.kind} store, ${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}, concurrency ${concurrency}, ${rounds} alternating rounds of ${seconds}s each, UV_THREADPOOL_SIZE=${process.env.UV_THREADPOOL_SIZE ?? 'default'})`);
console.log(`  raw argon2id verifications/s: ${raw.toFixed(1)}`);
console.log(`  full password sign-ins/s:     ${flow.toFixed(1)}`);
console.log(`  ratio: ${(ratio * 100).toFixed(1)}% (target ≥ 85%) ${ratio >= 0.85 ? 'PASS' : 'MISS'}`);
console.log(`  peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);

await server.close();
process.exit(0);
