/**
 * Token endpoint throughput: authorization-code exchanges and refresh grants per second over HTTP,
 * Nyckel against a bare oidc-provider, each in its own server process, driven by this process as
 * the HTTP client (keep-alive, the same number of requests in flight for all).
 *
 * - Nyckel (bench/tokens-nyckel-server.ts) is the real app as src/main.ts builds it, compiled as
 *   `npm start` runs it: PostgreSQL + Redis when DATABASE_URL and REDIS_URL are set (the
 *   production setup, NODE_ENV=production),
 *   embedded PGlite + in-process store otherwise (PGlite then runs inside the Nyckel process and
 *   counts in its CPU and memory).
 * - The bare oidc-provider (bench/tokens-bare-server.ts) has the default in-memory adapter, a
 *   static client and a trivial findAccount, with the same grants, lifetimes, PKCE, refresh-token
 *   rotation and ES256 ID tokens.
 * - In the production setup a second baseline runs beside them: the same bare provider on Redis,
 *   through the plainest adapter (bench/plain-redis-adapter.ts). Its ratio to the in-memory one
 *   is what keeping the state in Redis costs the library by itself.
 * - Codes are minted by each server with its own provider models over IPC, between timed runs.
 *   Refresh grants run in chains that rotate the refresh token each time, as clients do, over
 *   many grants (fresh chains each round, exchanged from codes before the timed run).
 * - The sides alternate in short rounds so both see the same background load on a shared machine.
 * - Each grant is measured at two concurrencies (BENCH_CONCURRENCY, default "4,32": requests in
 *   flight). A rate is what a server sustains when kept busy, so the targets are read at the
 *   highest: with only 4 in flight, a server that keeps its state in Redis spends much of each
 *   request waiting for Redis's answer with no other request to work on, while the in-memory
 *   baseline never waits, and the ratio then measures Redis's latency rather than the server's
 *   capacity (the bare provider on Redis shows the same). The lower one is printed for reference.
 *   From 32 in flight on, no side got much faster on the CI machine (64 gave about the same rates).
 *
 * Targets: Nyckel ≥ 70% of bare on both grants; ≥ 1,500 refresh grants/s per core, counted as
 * refresh grants per CPU-second of the Nyckel server process (PostgreSQL and Redis run in their
 * own processes and are not counted), at the highest concurrency; peak RSS (VmHWM) of the Nyckel
 * server process over the whole run < 200 MB.
 * The targets are for the production setup; the embedded numbers are printed for comparison.
 *
 * Each side runs 18 s per grant and concurrency, in 18 rounds of one second. On the 2-core CI
 * machine a single round's ratio ranged 38–133%, so the 6 rounds a run had before left its overall
 * ratio several points from one run to the next. More rounds of the same length, not longer ones:
 * refresh chains start afresh every round, and in longer rounds each chain grows longer, which
 * slows the bare provider's in-memory adapter (it rewrites a grant's member list on every token
 * saved) and flattered Nyckel's refresh ratio (85–107% in rounds of 3 s).
 *
 * BENCH_SECONDS (per side and grant), BENCH_ROUNDS, BENCH_CONCURRENCY tune it;
 * BENCH_NYCKEL_NODE_OPTIONS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") is passed to Nyckel's node,
 * BENCH_BARE_NODE_OPTIONS to the bare provider's.
 */
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { productionNodeFlags } from '../src/config/node-flags.ts';
import { clientId, clientSecret, redirectUri, verifier, type Reply, type Request, type Usage } from './tokens-shared.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 18);
const rounds = Number(process.env.BENCH_ROUNDS ?? 18);
/** Requests in flight, ascending; the targets are read at the last. */
const levels = (process.env.BENCH_CONCURRENCY ?? '4,32').split(',').map(Number).sort((a, b) => a - b);
// At most 100: each lane of a code-exchange run needs a few of the run's 200 codes to reach a steady state.
if (levels.length === 0 || !levels.every((level) => Number.isInteger(level) && level > 0 && level <= 100)) {
  console.error('tokens bench: BENCH_CONCURRENCY is a comma-separated list of integers from 1 to 100 (requests in flight)');
  process.exit(64);
}
const saturated = levels.at(-1)!;
/** Codes minted (untimed) before each timed run of exchanges: the bare provider's in-memory adapter is an LRU of 1,000 entries. */
const codeBatch = 200;
const production = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);

const basicAuth = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;

/** A request before call() numbers it. */
type Unsent = Request extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

interface Side {
  name: string;
  child: ChildProcess;
  tokenUrl: URL;
  description: string;
  agent: Agent;
  call<T extends Reply>(message: Unsent): Promise<T>;
}

/**
 * Both servers run compiled, as `npm start` and the Docker image run Nyckel (dist/, tsc with
 * tsconfig.build.json's settings): a server run from its TypeScript sources would carry Node's type
 * stripper (~30 MB) in its memory. Compiled into dist/bench-build/ before the run.
 */
const buildDir = join(import.meta.dirname, '../dist/bench-build/bench');
function buildServers(): void {
  const tsc = join(import.meta.dirname, '../node_modules/.bin/tsc');
  const result = spawnSync(tsc, ['-p', join(import.meta.dirname, '../tsconfig.bench.json')], { stdio: 'inherit' });
  if (result.status !== 0) {
    console.error('tokens bench: compiling the servers failed');
    process.exit(1);
  }
}

/** Starts a server process (compiled `file`, a bench/*.ts) and speaks its IPC protocol (bench/tokens-shared.ts). */
async function startSide(name: string, file: string, nodeOptions: string[] = [], env: Record<string, string> = {}): Promise<Side> {
  const child = fork(join(buildDir, file.replace(/\.ts$/, '.js')), [], {
    // Not this process's flags: they may be Node's type stripping options, which the compiled servers do without.
    execArgv: nodeOptions,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<number, (reply: Reply) => void>();
  let nextId = 0;
  const ready = new Promise<Extract<Reply, { op: 'ready' }>>((resolve) => {
    child.on('message', (reply: Reply) => {
      if (reply.op === 'ready') resolve(reply);
      else if (reply.op === 'failed') {
        console.error(`${name} server failed:\n${reply.error}`);
        process.exit(1);
      } else waiting.get(reply.id)?.(reply);
    });
  });
  child.on('exit', (code) => {
    if (code === 0) return;
    console.error(`${name} server exited with ${code}`);
    process.exit(1);
  });
  const { tokenUrl, description } = await ready;
  return {
    name,
    child,
    tokenUrl: new URL(tokenUrl),
    description,
    agent: new Agent({ keepAlive: true, maxSockets: saturated }),
    call<T extends Reply>(message: Unsent) {
      const id = nextId++;
      return new Promise<T>((resolve) => {
        waiting.set(id, (reply) => {
          waiting.delete(id);
          resolve(reply as T);
        });
        child.send({ ...message, id });
      });
    },
  };
}

async function stopSide(side: Side): Promise<void> {
  side.agent.destroy();
  const exited = new Promise((resolve) => side.child.once('exit', resolve));
  side.child.send({ op: 'stop', id: -1 });
  await exited;
}

/** One token request over a keep-alive connection; node:http keeps the client's own cost small. */
function tokenRequest(side: Side, params: Record<string, string>): Promise<{ refresh_token: string; id_token: string }> {
  const body = new URLSearchParams(params).toString();
  return new Promise((resolve, reject) => {
    const req = request(
      side.tokenUrl,
      {
        method: 'POST',
        agent: side.agent,
        headers: { authorization: basicAuth, 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          const parsed = JSON.parse(text) as { refresh_token?: string; id_token?: string };
          if (res.statusCode !== 200 || !parsed.refresh_token || !parsed.id_token) {
            reject(new Error(`${side.name} ${params.grant_type}: ${res.statusCode} ${text}`));
          } else resolve(parsed as { refresh_token: string; id_token: string });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const exchange = (side: Side, code: string) =>
  tokenRequest(side, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier });
const refresh = (side: Side, refreshToken: string) => tokenRequest(side, { grant_type: 'refresh_token', refresh_token: refreshToken });
const mint = async (side: Side, count: number) => (await side.call<Extract<Reply, { op: 'codes' }>>({ op: 'mint', count })).codes;
const usage = async (side: Side) => (await side.call<Extract<Reply, { op: 'usage' }>>({ op: 'usage' })).usage;

interface Sample {
  /** Requests answered while every lane had one in flight, and how long that lasted (seconds). */
  done: number;
  wall: number;
  /** Every request answered, the last ones included, and the server process's CPU-seconds for them. */
  answered: number;
  cpu: number;
  dbQueries: number;
  storeCalls: number;
}

/**
 * Runs `worker` on `concurrency` lanes for `budget` seconds or until it returns false. The rate
 * counts only the steady state: it ends when the first lane stops (out of time or out of codes),
 * because the requests still in flight then finish with fewer and fewer beside them. That wind-down
 * lasts about one request's latency, which is longer for a slower side, so counting it would charge
 * a slower side twice, most in the short runs of code exchanges (200 codes each). The CPU-second
 * rate counts every request and all the CPU they took.
 */
async function run(side: Side, concurrency: number, worker: (lane: number) => Promise<boolean>, budget: number): Promise<Sample> {
  let answered = 0;
  let steady: { done: number; at: number } | undefined;
  const before: Usage = await usage(side);
  const started = performance.now();
  const end = started + budget * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, lane) => {
      while (performance.now() < end && (await worker(lane))) answered += 1;
      steady ??= { done: answered, at: performance.now() };
    }),
  );
  const after = await usage(side);
  return {
    done: steady!.done,
    wall: (steady!.at - started) / 1000,
    answered,
    cpu: (after.cpuMicros - before.cpuMicros) / 1e6,
    dbQueries: after.dbQueries - before.dbQueries,
    storeCalls: after.storeCalls - before.storeCalls,
  };
}

interface Rate {
  perSecond: number;
  /** Per CPU-second of the server process: the rate one fully used core would give. */
  perCpuSecond: number;
  dbQueriesPerOp: number;
  storeCallsPerOp: number;
}

function rate(samples: Sample[]): Rate {
  const sum = (pick: (s: Sample) => number) => samples.reduce((total, s) => total + pick(s), 0);
  const answered = sum((s) => s.answered);
  return {
    perSecond: sum((s) => s.done) / sum((s) => s.wall),
    perCpuSecond: answered / sum((s) => s.cpu),
    dbQueriesPerOp: sum((s) => s.dbQueries) / answered,
    storeCallsPerOp: sum((s) => s.storeCalls) / answered,
  };
}

/** One timed round of code exchanges, in runs of `codeBatch` codes minted just before. */
async function codeExchangeRound(side: Side, concurrency: number, budget: number): Promise<Sample[]> {
  const samples: Sample[] = [];
  for (let timed = 0; timed < budget; timed += samples.at(-1)!.wall) {
    const codes = await mint(side, codeBatch);
    samples.push(
      await run(
        side,
        concurrency,
        async () => {
          const code = codes.pop();
          if (code === undefined) return false;
          await exchange(side, code);
          return true;
        },
        budget - timed,
      ),
    );
  }
  return samples;
}

/**
 * Refresh chains, rotating their refresh token on every grant as clients do. Each round starts
 * from fresh chains (codes exchanged before the timed run), `chainsPerLane` per lane taken in
 * turn (64 in all, so they stay inside the bare adapter's LRU), so a round refreshes many grants
 * a few times each, not a few grants thousands of times:
 * the bare provider's in-memory adapter rewrites a grant's whole member list on every token
 * saved, which would make the baseline slower the longer one chain runs.
 */
async function refreshRound(side: Side, concurrency: number, budget: number): Promise<Sample[]> {
  const chainsPerLane = Math.max(1, Math.floor(64 / concurrency));
  const codes = await mint(side, concurrency * chainsPerLane);
  const tokens = await Promise.all(codes.map(async (code) => (await exchange(side, code)).refresh_token));
  const lanes = Array.from({ length: concurrency }, (_, lane) => ({ chains: tokens.slice(lane * chainsPerLane, (lane + 1) * chainsPerLane), turn: 0 }));
  return [
    await run(
      side,
      concurrency,
      async (lane) => {
        const own = lanes[lane]!;
        const chain = own.turn++ % chainsPerLane;
        own.chains[chain] = (await refresh(side, own.chains[chain]!)).refresh_token;
        return true;
      },
      budget,
    ),
  ];
}

interface SideBySide {
  rates: Map<Side, Rate>;
  /** Per side, per round, its rate over the baseline's, as the rounds ran: how much a ratio moves within one run. */
  roundRatios: Map<Side, number[]>;
}

/**
 * The sides take turns in short rounds, in the opposite order every other round, so all see the
 * same background load on a shared machine. The first side is the baseline of the round ratios.
 */
async function sideBySide(
  sides: Side[],
  concurrency: number,
  round: (side: Side, concurrency: number, budget: number) => Promise<Sample[]>,
): Promise<SideBySide> {
  const baseline = sides[0]!;
  const samples = new Map<Side, Sample[]>(sides.map((side) => [side, []]));
  const roundRatios = new Map<Side, number[]>(sides.map((side) => [side, []]));
  for (let i = 0; i < rounds; i += 1) {
    const thisRound = new Map<Side, Sample[]>();
    for (const side of i % 2 === 0 ? sides : [...sides].reverse()) thisRound.set(side, await round(side, concurrency, seconds / rounds));
    for (const [side, list] of thisRound) {
      samples.get(side)!.push(...list);
      roundRatios.get(side)!.push(rate(list).perSecond / rate(thisRound.get(baseline)!).perSecond);
    }
  }
  return { rates: new Map([...samples].map(([side, list]) => [side, rate(list)])), roundRatios };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** "median 57.1%, rounds 51.0–63.2%": the spread a single run's ratio carries. */
function spread(ratios: number[]): string {
  const sorted = [...ratios].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  const median = sorted.length % 2 ? sorted[Math.floor(middle)]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return `median ${pct(median)}, rounds ${pct(sorted[0]!)}–${pct(sorted.at(-1)!)}`;
}

/** kB fields of /proc/<pid>/status, in MB: VmRSS (now) and VmHWM (peak). */
function memoryOf(side: Side): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${side.child.pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
  return { rssMb: field('VmRSS'), peakMb: field('VmHWM') };
}

// Nyckel runs with its production V8 flags, as `npm start` and the Docker image run it.
const nyckelOptions = [...productionNodeFlags, ...(process.env.BENCH_NYCKEL_NODE_OPTIONS ?? '').split(' ').filter(Boolean)];
const bareOptions = (process.env.BENCH_BARE_NODE_OPTIONS ?? '').split(' ').filter(Boolean);
buildServers();
const [bare, nyckel, bareOnRedis] = await Promise.all([
  startSide('bare oidc-provider', 'tokens-bare-server.ts', bareOptions),
  startSide('Nyckel', 'tokens-nyckel-server.ts', nyckelOptions),
  ...(production ? [startSide('bare on Redis', 'tokens-bare-server.ts', bareOptions, { BENCH_BARE_STORE: 'redis' })] : []),
]);
const sides = [bare, nyckel, ...(bareOnRedis ? [bareOnRedis] : [])];
const ready = memoryOf(nyckel);

// Warm every side (JIT, connection pools, key import) before measuring.
for (const side of sides) {
  const codes = await mint(side, 100);
  for (const code of codes) await refresh(side, (await exchange(side, code)).refresh_token);
}
const warm = new Map(sides.map((side) => [side, memoryOf(side)]));

const mark = (ok: boolean) => (ok ? 'PASS' : 'MISS');
const n = (x: number) => x.toFixed(0).padStart(8);
const scopeNote = production ? 'production setup: the targets apply' : 'embedded setup, for comparison: the targets apply to PostgreSQL + Redis';

console.log(`tokens bench: ${nyckel.description} vs ${bare.description}${bareOnRedis ? ` and ${bareOnRedis.description}` : ''}`);
console.log(
  `  each server in its own process, HTTP client in the parent (keep-alive); ${seconds}s per side per grant in ${rounds} alternating rounds, ` +
    `at ${levels.join(' and ')} requests in flight; ${scopeNote}`,
);

/** The verdicts at the highest concurrency, for the summary line. */
const verdicts: boolean[] = [];
for (const concurrency of levels) {
  const targets = concurrency === saturated;
  const codeRun = await sideBySide(sides, concurrency, codeExchangeRound);
  const refreshRun = await sideBySide(sides, concurrency, refreshRound);
  const codes = codeRun.rates;
  const refreshes = refreshRun.rates;
  const nyckelHeap = (await usage(nyckel)).memory;

  console.log(
    targets
      ? `  ${concurrency} in flight: the server kept busy, where the targets are read`
      : `  ${concurrency} in flight, for reference: the Redis-backed servers wait on Redis's answers here, the in-memory one never does`,
  );
  console.log('                        code exchanges/s   refresh grants/s   refresh grants/CPU-s   RSS now / peak so far');
  for (const side of sides) {
    const mem = memoryOf(side);
    console.log(
      `  ${side.name.padEnd(20)} ${n(codes.get(side)!.perSecond)}           ${n(refreshes.get(side)!.perSecond)}           ${n(refreshes.get(side)!.perCpuSecond)}` +
        `             ${mem.rssMb.toFixed(0)} / ${mem.peakMb.toFixed(0)} MB`,
    );
  }
  const ours = { codes: codes.get(nyckel)!, refresh: refreshes.get(nyckel)! };
  const codeRatio = ours.codes.perSecond / codes.get(bare)!.perSecond;
  const refreshRatio = ours.refresh.perSecond / refreshes.get(bare)!.perSecond;
  const verdict = (ok: boolean) => {
    if (!targets) return '';
    verdicts.push(ok);
    return ` ${mark(ok)}`;
  };
  console.log(`  Nyckel/bare, code exchanges: ${pct(codeRatio)} (target ≥ 70%)${verdict(codeRatio >= 0.7)}; ${spread(codeRun.roundRatios.get(nyckel)!)}`);
  console.log(`  Nyckel/bare, refresh grants: ${pct(refreshRatio)} (target ≥ 70%)${verdict(refreshRatio >= 0.7)}; ${spread(refreshRun.roundRatios.get(nyckel)!)}`);
  if (bareOnRedis) {
    const onRedis = { codes: codes.get(bareOnRedis)!, refresh: refreshes.get(bareOnRedis)! };
    const of = (x: Rate, y: Rate) => `${pct(x.perSecond / y.perSecond)} (per CPU-second ${pct(x.perCpuSecond / y.perCpuSecond)})`;
    console.log(
      `  bare on Redis/bare, what Redis costs the library by itself: code exchanges ${of(onRedis.codes, codes.get(bare)!)}; ${spread(codeRun.roundRatios.get(bareOnRedis)!)}; ` +
        `refresh grants ${of(onRedis.refresh, refreshes.get(bare)!)}; ${spread(refreshRun.roundRatios.get(bareOnRedis)!)}`,
    );
    console.log(`  Nyckel/bare on Redis: code exchanges ${of(ours.codes, onRedis.codes)}; refresh grants ${of(ours.refresh, onRedis.refresh)}`);
  }
  console.log(
    `  Nyckel refresh grants per core (per CPU-second of the Nyckel server process): ${ours.refresh.perCpuSecond.toFixed(0)} ` +
      `(target ≥ 1,500)${verdict(ours.refresh.perCpuSecond >= 1500)}`,
  );
  console.log(
    `  Nyckel I/O per grant: code exchange ${ours.codes.dbQueriesPerOp.toFixed(1)} SQL + ${ours.codes.storeCallsPerOp.toFixed(1)} store calls; ` +
      `refresh ${ours.refresh.dbQueriesPerOp.toFixed(1)} SQL + ${ours.refresh.storeCallsPerOp.toFixed(1)} store calls ` +
      `(store calls include the back-channel limits' syncs, one per 100 ms)`,
  );
  console.log(`  Nyckel code exchanges per CPU-second: ${ours.codes.perCpuSecond.toFixed(0)} (bare: ${codes.get(bare)!.perCpuSecond.toFixed(0)})`);
  // The per-core target is absolute, so it moves with the machine; the bare library's own figure in
  // the same run says how fast this machine is, and the ratio does not depend on it.
  console.log(
    `  Nyckel/bare per CPU-second (machine-independent): code exchanges ${pct(ours.codes.perCpuSecond / codes.get(bare)!.perCpuSecond)}, ` +
      `refresh grants ${pct(ours.refresh.perCpuSecond / refreshes.get(bare)!.perCpuSecond)}`,
  );
  const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
  console.log(`  Nyckel V8 heap after these rounds: ${mb(nyckelHeap.heapUsed)} used of ${mb(nyckelHeap.heapTotal)}, external ${mb(nyckelHeap.external)}`);
}

const peakMb = memoryOf(nyckel).peakMb;
console.log(
  `  Nyckel memory: at ready ${ready.rssMb.toFixed(0)} MB RSS (start-up peak ${ready.peakMb.toFixed(0)} MB), warm ${warm.get(nyckel)!.rssMb.toFixed(0)} MB`,
);
console.log(`  peak RSS of the Nyckel server process over the whole run (VmHWM): ${peakMb.toFixed(0)} MB (target < 200 MB) ${mark(peakMb < 200)}`);
verdicts.push(peakMb < 200);
console.log(`  targets: ${verdicts.filter(Boolean).length} of ${verdicts.length} met`);

await Promise.all(sides.map(stopSide));
process.exit(0);
