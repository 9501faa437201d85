/**
 * verify-mfa calls per second over HTTP (MfaRequired → Done: attempt counter, TOTP check, replay
 * mark, portal session, sign-in record and audit, through the store and the database) against
 * raw otplib verifications per second (same secret, same ±1-step window). Target: ≥ 2,000
 * verify-mfa calls per second per core.
 *
 * "Per core" is measured, not assumed: the server runs in this process (one JS thread; PGlite in
 * it when embedded) and the HTTP client in a child process, so the client's work is not charged
 * to the server. The server process's CPU time during the timed window gives calls per
 * CPU-second; wall-clock calls per second are printed too. With DATABASE_URL / REDIS_URL, the
 * work of PostgreSQL and Redis runs in their own processes and is not counted. A second timed
 * phase calls POST /auth/login/ping (same middleware, next to no work) as the HTTP ceiling of
 * this machine, so the verify-mfa figure can be read against what any call here can reach.
 *
 * Every call needs a login session in MfaRequired; the client prepares them before the timed part
 * over HTTP (start → verify-password) from varied client addresses (TRUST_PROXY=1), one account
 * per session: an account's TOTP credential accepts one code per time step (replay guard) and
 * its email has a budget of 60 calls per 15 minutes. The accounts share one TOTP secret (their
 * credentials, and so their replay marks, are distinct) and a deliberately cheap argon2id hash, so
 * preparing thousands of sessions is quick; the timed part never hashes.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { hash } from '@node-rs/argon2';
import type { Redis } from 'ioredis';
import { verify } from 'otplib';
import { newTotpSecret, totpCodeAt, totpPeriodSeconds, totpToleranceSteps } from '../src/credentials/totp/totp.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const sessions = Number(process.env.BENCH_SESSIONS ?? 20000);
const target = 2000;
/** A directory: the server's CPU profile of the timed verify-mfa phase alone is written there. */
const profileDir = process.env.BENCH_CPU_PROFILE;
const password = 'Bench-passw0rd!';

type ToClient = { type: 'go'; base: string; secret: string } | { type: 'next' };
type FromClient =
  | { type: 'prepared'; seconds: number }
  | { type: 'timed-start' }
  | { type: 'timed-end'; calls: number; elapsed: number; exhausted: boolean }
  | { type: 'failed'; message: string };

/** The current code, computed once per time step. */
function codes(secret: string): () => Promise<string> {
  let cached = { step: -1, code: '' };
  return async () => {
    const now = Date.now();
    const step = Math.floor(now / 1000 / totpPeriodSeconds);
    if (step !== cached.step) cached = { step, code: await totpCodeAt(secret, new Date(now)) };
    return cached.code;
  };
}

if (process.argv[2] === 'client') {
  await runClient();
} else {
  await runServer();
}

async function runServer(): Promise<void> {
  const { startTestServer } = await import('../test/helpers/server.ts');
  const server = await startTestServer({ env: { TRUST_PROXY: '1' } });
  const { db } = server.ctx;
  const secret = newTotpSecret();
  const sealed = server.ctx.secretBox.seal(secret);
  // Cheap parameters (8 KiB, 1 pass) for preparation speed only; Nyckel's own hashes are OWASP's.
  const cheapHash = await hash(password, { memoryCost: 8, timeCost: 1, parallelism: 1 });
  const emails = Array.from({ length: sessions }, (_, i) => `mfa-bench${i}@example.com`);
  await db.batchInsert('accounts', emails.map((email) => ({ email, name: email, is_user: true, email_verified: true })), 1000);
  const ids: { id: string }[] = await db('accounts').where('email', 'like', 'mfa-bench%').select('id');
  await db.batchInsert('credentials', ids.map(({ id }) => ({ account_id: id, type: 'password', secret: cheapHash })), 1000);
  await db.batchInsert('credentials', ids.map(({ id }) => ({ account_id: id, type: 'totp', secret: sealed })), 1000);

  // Raw otplib on this thread: verifications per wall-second are verifications per core.
  const current = codes(secret);
  const epochTolerance = totpToleranceSteps * totpPeriodSeconds;
  const rawVerify = async () => {
    const result = await verify({ secret, token: await current(), epochTolerance });
    if (!result.valid) throw new Error('raw verify failed');
  };
  for (let i = 0; i < 500; i += 1) await rawVerify();
  let rawCalls = 0;
  const rawStarted = performance.now();
  while (performance.now() - rawStarted < seconds * 1000) {
    await rawVerify();
    rawCalls += 1;
  }
  const raw = rawCalls / ((performance.now() - rawStarted) / 1000);

  const redisCommands = countRedisCommands(server.ctx.store);
  const client: ChildProcess = fork(import.meta.filename, ['client'], { env: process.env });
  let prepSeconds = 0;
  let cpuAtStart = process.cpuUsage();
  const phases: { calls: number; elapsed: number; exhausted: boolean; cpuSeconds: number; systemSeconds: number }[] = [];
  let phaseDone: (() => void) | undefined;
  let profiling: Promise<Session | undefined> | undefined;
  const failed = new Promise<never>((_resolve, reject) => {
    client.on('message', (message: FromClient) => {
      if (message.type === 'prepared') prepSeconds = message.seconds;
      if (message.type === 'timed-start') {
        cpuAtStart = process.cpuUsage();
        redisCommands.counting = phases.length === 0;
        if (profileDir && phases.length === 0) profiling = startProfile();
      }
      if (message.type === 'timed-end') {
        const cpu = process.cpuUsage(cpuAtStart);
        redisCommands.counting = false;
        phases.push({ ...message, cpuSeconds: (cpu.user + cpu.system) / 1e6, systemSeconds: cpu.system / 1e6 });
        if (profiling && phases.length === 1) profiling = profiling.then((session) => stopProfile(session!));
        phaseDone?.();
      }
      if (message.type === 'failed') reject(new Error(message.message));
    });
    client.on('exit', (code) => code !== 0 && code !== null && reject(new Error(`client exited with ${code}`)));
  });
  const phase = () => Promise.race([new Promise<void>((resolve) => (phaseDone = resolve)), failed]);
  const first = phase();
  client.send({ type: 'go', base: server.base, secret } satisfies ToClient);
  await first;
  const second = phase();
  client.send({ type: 'next' } satisfies ToClient);
  await second;
  await profiling;
  const [result, ping] = phases as [(typeof phases)[number], (typeof phases)[number]];
  const cpuSeconds = result.cpuSeconds;
  const wall = result.calls / result.elapsed;
  const perCore = result.calls / cpuSeconds;

  console.log(
    `mfa bench (${server.ctx.store.kind} store, ${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}, client concurrency ${concurrency}, ${seconds}s each)`,
  );
  console.log(`  prepared ${sessions} login sessions in MfaRequired in ${prepSeconds.toFixed(1)}s (not timed)`);
  console.log(`  raw otplib verifications/s (one core):        ${raw.toFixed(0)}`);
  console.log(
    `  verify-mfa calls/s over HTTP (wall clock):    ${wall.toFixed(0)} (${result.calls} calls in ${result.elapsed.toFixed(1)}s${result.exhausted ? '; ran out of sessions, raise BENCH_SESSIONS' : ''})`,
  );
  console.log(
    `  server CPU: ${cpuSeconds.toFixed(2)}s for ${result.elapsed.toFixed(1)}s (${((100 * cpuSeconds) / result.elapsed).toFixed(0)}% of one core; ${((1e6 * (cpuSeconds - result.systemSeconds)) / result.calls).toFixed(0)} µs user + ${((1e6 * result.systemSeconds) / result.calls).toFixed(0)} µs system per call)`,
  );
  console.log(`  verify-mfa calls per server CPU-second:       ${perCore.toFixed(0)} (target ≥ ${target}/s per core: ${perCore >= target ? 'PASS' : 'MISS'})`);
  console.log(`  ratio per core: ${((100 * perCore) / raw).toFixed(1)}% of raw otplib`);
  console.log(
    `  baseline, POST /auth/login/ping: ${(ping.calls / ping.elapsed).toFixed(0)}/s wall, ${(ping.calls / ping.cpuSeconds).toFixed(0)} per server CPU-second (the HTTP ceiling here)`,
  );
  if (redisCommands.byKind.size > 0) {
    const perCall = (count: number) => (count / result.calls).toFixed(2);
    const total = [...redisCommands.byKind.values()].reduce((sum, count) => sum + count, 0);
    const kinds = [...redisCommands.byKind].sort((a, b) => b[1] - a[1]).map(([kind, count]) => `${kind} ${perCall(count)}`);
    console.log(`  Redis commands per verify-mfa call: ${perCall(total)} (${kinds.join(', ')})`);
  }
  console.log(`  peak RSS (server): ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
  client.kill();
  await server.close();
  process.exit(0);
}

/**
 * Counts the Redis commands the server sends while `counting` (the timed verify-mfa phase), by
 * command and the kind of key (its first segment after the store's prefix: `login`, `rl`, ...),
 * the rate limiter's included: they share the store's client.
 */
function countRedisCommands(store: object): { counting: boolean; byKind: Map<string, number> } {
  const counter = { counting: false, byKind: new Map<string, number>() };
  const client = (store as { client?: Redis }).client;
  if (!client) return counter;
  const send = client.sendCommand.bind(client);
  client.sendCommand = (command, stream) => {
    if (counter.counting) {
      const args = command.args.map(String);
      const key = (command.name === 'evalsha' || command.name === 'eval' ? args[2] : args[0]) ?? '';
      const kind = `${command.name}(${key.split(':').find((segment, i) => i > 0 && /^[a-z][a-z-]*$/.test(segment)) ?? '?'})`;
      counter.byKind.set(kind, (counter.byKind.get(kind) ?? 0) + 1);
    }
    return send(command, stream);
  };
  return counter;
}

async function startProfile(): Promise<Session> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return session;
}

async function stopProfile(session: Session): Promise<undefined> {
  const { profile } = await session.post('Profiler.stop');
  mkdirSync(profileDir!, { recursive: true });
  const file = join(profileDir!, `mfa-${Date.now()}.cpuprofile`);
  writeFileSync(file, JSON.stringify(profile));
  session.disconnect();
  console.log(`  CPU profile of the timed verify-mfa phase: ${file}`);
  return undefined;
}

async function runClient(): Promise<void> {
  const { base, secret } = await new Promise<Extract<ToClient, { type: 'go' }>>((resolve) => process.once('message', (m) => resolve(m as Extract<ToClient, { type: 'go' }>)));
  const send = (message: FromClient) => process.send!(message);
  try {
    // A different client address per sign-in, as behind a load balancer (the per-IP budget is for abuse).
    const randomIp = () => `10.${randomBytes(3).join('.')}`;
    const headersFor = (ip: string, cookie?: string) => ({
      'content-type': 'application/json',
      origin: base,
      'x-forwarded-for': ip,
      ...(cookie ? { cookie } : {}),
    });
    const post = async (path: string, ip: string, body: unknown, cookie?: string) => {
      const res = await fetch(`${base}${path}`, { method: 'POST', headers: headersFor(ip, cookie), body: JSON.stringify(body) });
      return { res, body: (await res.json()) as { state?: string; session_id: string } };
    };

    interface Prepared {
      sessionId: string;
      cookie: string;
      ip: string;
    }
    const prepared: Prepared[] = [];
    const prepStarted = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < sessions) {
          const email = `mfa-bench${next++}@example.com`;
          const ip = randomIp();
          const start = await post('/auth/login/start', ip, { email });
          const cookie = start.res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
          const first = await post('/auth/login/verify-password', ip, { session_id: start.body.session_id, email, password }, cookie);
          if (first.body.state !== 'MfaRequired') throw new Error(`preparation failed: ${first.res.status} ${JSON.stringify(first.body)}`);
          prepared.push({ sessionId: start.body.session_id, cookie, ip });
        }
      }),
    );
    send({ type: 'prepared', seconds: (performance.now() - prepStarted) / 1000 });

    const current = codes(secret);
    const verifyMfa = async (): Promise<boolean> => {
      const session = prepared.pop();
      if (!session) return false;
      const { res, body } = await post('/auth/login/verify-mfa', session.ip, { session_id: session.sessionId, totp_code: await current() }, session.cookie);
      if (body.state !== 'Done') throw new Error(`verify-mfa failed: ${res.status} ${JSON.stringify(body)}`);
      return true;
    };
    for (let i = 0; i < 50; i += 1) await verifyMfa();

    send({ type: 'timed-start' });
    let calls = 0;
    const started = performance.now();
    const end = started + seconds * 1000;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < end && (await verifyMfa())) calls += 1;
      }),
    );
    send({ type: 'timed-end', calls, elapsed: (performance.now() - started) / 1000, exhausted: prepared.length === 0 });

    // Baseline: the same HTTP path through the api router (helmet, JSON body, cookies, origin
    // check, per-IP limit) doing almost nothing: the ceiling any call of this API can reach here.
    await new Promise<void>((resolve) => process.once('message', () => resolve()));
    send({ type: 'timed-start' });
    let pings = 0;
    const pingStarted = performance.now();
    const pingEnd = pingStarted + seconds * 1000;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < pingEnd) {
          const ip = randomIp();
          const { res } = await post('/auth/login/ping', ip, {});
          if (res.status !== 200) throw new Error(`ping failed: ${res.status}`);
          pings += 1;
        }
      }),
    );
    send({ type: 'timed-end', calls: pings, elapsed: (performance.now() - pingStarted) / 1000, exhausted: false });
  } catch (err) {
    send({ type: 'failed', message: (err as Error).message });
  }
}
