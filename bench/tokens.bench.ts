/**
 * Token endpoint throughput: authorization-code exchanges per second and refresh grants per
 * second over HTTP, against Nyckel (Express app, its Store adapter — Redis when REDIS_URL is set —
 * PostgreSQL clients and accounts) and against a bare oidc-provider (default in-memory adapter,
 * static client, trivial findAccount), side by side in one process, same concurrency, same
 * ES256 ID tokens and token lifetimes. Codes are minted in-process through the provider models
 * between timed rounds, so only the exchanges are timed. Refresh grants run in chains that
 * rotate the refresh token each time, as clients do.
 *
 * Targets: Nyckel ≥ 70% of bare on both grants; ≥ 1,500 refresh grants/s per core; peak RSS
 * < 200 MB. `npm run bench` runs this single process with UV_THREADPOOL_SIZE=1, so "per core"
 * is refresh grants per CPU-second of this process (the HTTP client runs in it too; PostgreSQL
 * and Redis, when used, run in their own processes and are not counted).
 */
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type ClientMetadata, type Configuration } from 'oidc-provider';
import { upsertClient } from '../src/oidc/clients.ts';
import { tokenTtl } from '../src/oidc/provider.ts';
import { createAccount } from '../test/fixtures/accounts.ts';
import { startTestServer } from '../test/helpers/server.ts';

/** Seconds measured per side and per grant type, split into alternating rounds. */
const seconds = Number(process.env.BENCH_SECONDS ?? 4);
const rounds = 4;
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 4);
/** Codes minted (untimed) before each timed round of exchanges. */
const codeBatch = 200;
const accountCount = 50;

const clientId = 'bench-rp';
const clientSecret = 'bench-rp-secret-0123456789';
const redirectUri = 'http://127.0.0.1:9/callback';
const scope = 'openid offline_access';
const verifier = randomBytes(32).toString('base64url');
const challenge = createHash('sha256').update(verifier).digest('base64url');
const basicAuth = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;

interface Side {
  name: string;
  provider: Provider;
  tokenUrl: string;
  accounts: string[];
}

// ---- Nyckel: the real app, its database and store -----------------------------------------
const nyckelServer = await startTestServer();
await upsertClient(nyckelServer.ctx.db, { client_id: clientId, redirect_uris: [redirectUri], client_secret: clientSecret });
const accounts: string[] = [];
for (let i = 0; i < accountCount; i += 1) {
  accounts.push(await createAccount(nyckelServer.ctx.db, { email: `tokens${i}@example.com`, name: `Token ${i}` }));
}
const nyckel: Side = { name: 'Nyckel', provider: nyckelServer.app.provider, tokenUrl: `${nyckelServer.issuer}/token`, accounts };

// ---- Bare oidc-provider: same grants, lifetimes and signing algorithm, in-memory adapter -----
let bareHandler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
const bareHttp: Server = createServer((req, res) => bareHandler(req, res));
await new Promise<void>((resolve) => bareHttp.listen(0, '127.0.0.1', resolve));
const bareIssuer = `http://127.0.0.1:${(bareHttp.address() as AddressInfo).port}`;
const bareKey = { ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }), kid: 'bare', alg: 'ES256', use: 'sig' };
const bareProvider = new Provider(bareIssuer, {
  clients: [
    {
      client_id: clientId,
      client_secret: clientSecret,
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      id_token_signed_response_alg: 'ES256',
      token_endpoint_auth_method: 'client_secret_basic',
    } satisfies ClientMetadata,
  ],
  jwks: { keys: [bareKey] as NonNullable<Configuration['jwks']>['keys'] },
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  findAccount: (async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) })) as Configuration['findAccount'],
  features: { devInteractions: { enabled: false } },
  pkce: { required: () => true },
  scopes: ['openid', 'offline_access'],
  rotateRefreshToken: true,
  issueRefreshToken: async (_ctx, client, code) => client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access'),
  ttl: { ...tokenTtl },
});
bareHandler = bareProvider.callback();
const bare: Side = { name: 'bare oidc-provider', provider: bareProvider, tokenUrl: `${bareIssuer}/token`, accounts };

// ---- grants ----------------------------------------------------------------------------------
let minted = 0;
/** A code as the interaction would leave it: a grant for the scope and a code bound to PKCE. */
async function mintCode(side: Side): Promise<string> {
  const accountId = side.accounts[minted++ % side.accounts.length]!;
  const client = await side.provider.Client.find(clientId);
  const grant = new side.provider.Grant({ accountId, clientId });
  grant.addOIDCScope(scope);
  const grantId = await grant.save();
  // As oidc-provider's authorization endpoint builds it. (@types/oidc-provider marks `gty`
  // required here; the library sets none on codes.)
  const code = new side.provider.AuthorizationCode({
    client: client!,
    accountId,
    grantId,
    redirectUri,
    scope,
    codeChallenge: challenge,
    codeChallengeMethod: 'S256',
    authTime: Math.floor(Date.now() / 1000),
    acr: 'urn:nyckel:loa:1',
    amr: ['pwd'],
  } as ConstructorParameters<Provider['AuthorizationCode']>[0]);
  return code.save();
}

async function tokenRequest(side: Side, params: Record<string, string>): Promise<{ refresh_token: string; id_token: string }> {
  const response = await fetch(side.tokenUrl, {
    method: 'POST',
    headers: { authorization: basicAuth, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  });
  const body = (await response.json()) as { refresh_token?: string; id_token?: string; error?: string };
  if (response.status !== 200 || !body.refresh_token || !body.id_token) {
    throw new Error(`${side.name} ${params.grant_type}: ${response.status} ${JSON.stringify(body)}`);
  }
  return body as { refresh_token: string; id_token: string };
}

const exchange = (side: Side, code: string) =>
  tokenRequest(side, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier });
const refresh = (side: Side, refreshToken: string) => tokenRequest(side, { grant_type: 'refresh_token', refresh_token: refreshToken });

interface Sample {
  done: number;
  wall: number;
  cpu: number;
  dbQueries: number;
  storeCalls: number;
}

/** Nyckel's PostgreSQL queries and Store calls, to show what one grant costs it. */
const io = { dbQueries: 0, storeCalls: 0 };
nyckelServer.ctx.db.on('query', () => (io.dbQueries += 1));
const store = nyckelServer.ctx.store as unknown as Record<string, unknown>;
for (const method of ['get', 'set', 'setIfAbsent', 'getDel', 'del', 'incr', 'ttl', 'sadd', 'smembers', 'srem']) {
  const original = store[method] as (...args: unknown[]) => Promise<unknown>;
  store[method] = (...args: unknown[]) => {
    io.storeCalls += 1;
    return original.apply(nyckelServer.ctx.store, args);
  };
}

/** Runs `worker` on `concurrency` lanes for `budget` seconds or until it returns false. */
async function run(worker: (lane: number) => Promise<boolean>, budget: number): Promise<Sample> {
  let done = 0;
  const before = { ...io };
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const end = started + budget * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, lane) => {
      while (performance.now() < end && (await worker(lane))) done += 1;
    }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  return {
    done,
    wall: (performance.now() - started) / 1000,
    cpu: (cpu.user + cpu.system) / 1e6,
    dbQueries: io.dbQueries - before.dbQueries,
    storeCalls: io.storeCalls - before.storeCalls,
  };
}

interface Rate {
  perSecond: number;
  /** Per CPU-second of this process: the rate one fully used core would give. */
  perCpuSecond: number;
  dbQueriesPerOp: number;
  storeCallsPerOp: number;
}

function rate(samples: Sample[]): Rate {
  const sum = (pick: (s: Sample) => number) => samples.reduce((total, s) => total + pick(s), 0);
  const done = sum((s) => s.done);
  return {
    perSecond: done / sum((s) => s.wall),
    perCpuSecond: done / sum((s) => s.cpu),
    dbQueriesPerOp: sum((s) => s.dbQueries) / done,
    storeCallsPerOp: sum((s) => s.storeCalls) / done,
  };
}

/**
 * One timed round of code exchanges. Codes are minted in batches between timed runs:
 * oidc-provider's default in-memory adapter is an LRU of ~1,000 entries, so a large pool of
 * codes would be evicted before its exchange.
 */
async function codeExchangeRound(side: Side, budget: number): Promise<Sample[]> {
  const samples: Sample[] = [];
  for (let timed = 0; timed < budget; timed += samples.at(-1)!.wall) {
    const codes = await Promise.all(Array.from({ length: codeBatch }, () => mintCode(side)));
    samples.push(
      await run(async () => {
        const code = codes.pop();
        if (code === undefined) return false;
        await exchange(side, code);
        return true;
      }, budget - timed),
    );
  }
  return samples;
}

/** Refresh chains, one per lane, rotating their refresh token on every grant as clients do. */
const chains = new Map<Side, string[]>();
async function refreshRound(side: Side, budget: number): Promise<Sample[]> {
  if (!chains.has(side)) {
    chains.set(side, await Promise.all(Array.from({ length: concurrency }, async () => (await exchange(side, await mintCode(side))).refresh_token)));
  }
  const lanes = chains.get(side)!;
  return [
    await run(async (lane) => {
      lanes[lane] = (await refresh(side, lanes[lane]!)).refresh_token;
      return true;
    }, budget),
  ];
}

/** The sides alternate in short rounds, so both see the same background load on a shared machine. */
async function sideBySide(round: (side: Side, budget: number) => Promise<Sample[]>): Promise<Map<Side, Rate>> {
  const samples = new Map<Side, Sample[]>([[bare, []], [nyckel, []]]);
  for (let i = 0; i < rounds; i += 1) {
    for (const side of i % 2 === 0 ? [bare, nyckel] : [nyckel, bare]) samples.get(side)!.push(...(await round(side, seconds / rounds)));
  }
  return new Map([...samples].map(([side, list]) => [side, rate(list)]));
}

// Warm both sides (JIT, connection pools, key import) before measuring.
for (const side of [bare, nyckel]) {
  for (let i = 0; i < 50; i += 1) await refresh(side, (await exchange(side, await mintCode(side))).refresh_token);
}
const startedRssMb = process.memoryUsage().rss / 2 ** 20;

const codes = await sideBySide(codeExchangeRound);
const refreshes = await sideBySide(refreshRound);
// Peak RSS of the whole process: both providers, the HTTP client and, when embedded, PGlite.
const peakRssMb = process.resourceUsage().maxRSS / 1024;

const storeName = nyckelServer.ctx.store.kind === 'redis' ? 'Redis' : 'in-process store';
const dbName = process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const mark = (ok: boolean) => (ok ? 'PASS' : 'MISS');
const n = (x: number) => x.toFixed(0).padStart(8);

console.log(
  `tokens bench: Nyckel on ${storeName} + ${dbName} vs bare oidc-provider (in-memory adapter); ` +
    `concurrency ${concurrency}, ${seconds}s per side per grant in ${rounds} alternating rounds; ` +
    `one process (HTTP client included), UV_THREADPOOL_SIZE=${process.env.UV_THREADPOOL_SIZE ?? 'default'}`,
);
console.log('                        code exchanges/s   refresh grants/s   refresh grants/CPU-s');
for (const side of [bare, nyckel]) {
  console.log(`  ${side.name.padEnd(20)} ${n(codes.get(side)!.perSecond)}           ${n(refreshes.get(side)!.perSecond)}           ${n(refreshes.get(side)!.perCpuSecond)}`);
}
const ours = { codes: codes.get(nyckel)!, refresh: refreshes.get(nyckel)! };
const codeRatio = ours.codes.perSecond / codes.get(bare)!.perSecond;
const refreshRatio = ours.refresh.perSecond / refreshes.get(bare)!.perSecond;
console.log(`  Nyckel/bare, code exchanges: ${pct(codeRatio)} (target ≥ 70%) ${mark(codeRatio >= 0.7)}`);
console.log(`  Nyckel/bare, refresh grants: ${pct(refreshRatio)} (target ≥ 70%) ${mark(refreshRatio >= 0.7)}`);
console.log(
  `  Nyckel refresh grants per core (per CPU-second of this process): ${ours.refresh.perCpuSecond.toFixed(0)} ` +
    `(target ≥ 1,500) ${mark(ours.refresh.perCpuSecond >= 1500)}`,
);
console.log(
  `  Nyckel I/O per grant: code exchange ${ours.codes.dbQueriesPerOp.toFixed(1)} SQL + ${ours.codes.storeCallsPerOp.toFixed(1)} store calls; ` +
    `refresh ${ours.refresh.dbQueriesPerOp.toFixed(1)} SQL + ${ours.refresh.storeCallsPerOp.toFixed(1)} store calls`,
);
console.log(`  RSS after start-up and warm-up: ${startedRssMb.toFixed(0)} MB`);
console.log(`  peak RSS of the process: ${peakRssMb.toFixed(0)} MB (target < 200 MB) ${mark(peakRssMb < 200)}`);

bareHttp.closeAllConnections();
await new Promise((resolve) => bareHttp.close(resolve));
await nyckelServer.close();
process.exit(0);
