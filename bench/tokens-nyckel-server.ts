/**
 * Nyckel as it runs in production, in its own process, for the tokens bench: src/main.ts's
 * context (pino, knex pool, Store), migrations, createApp and the HTTP server settings of main.ts.
 * PostgreSQL + Redis when DATABASE_URL and REDIS_URL are set (a fresh database on that server,
 * dropped afterwards, and a fresh key prefix, removed afterwards); otherwise the embedded setup:
 * PGlite in a temporary DATA_DIR and the in-process store. Started by bench/tokens.bench.ts over IPC.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knex from 'knex';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config/index.ts';
import { migrateLatest } from '../src/db/migrate.ts';
import { createContext } from '../src/main.ts';
import { upsertClient } from '../src/oidc/clients.ts';
import { clientId, clientSecret, freePort, listen, mintCodes, redirectUri, reportStartupFailure, serve } from './tokens-shared.ts';

const accountCount = 50;

try {
  const production = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
  const dataDir = mkdtempSync(join(tmpdir(), 'nyckel-bench-'));
  let databaseUrl: string | undefined;
  let dropDatabase = async () => {};
  if (process.env.DATABASE_URL) {
    const name = `nyckel_bench_${randomBytes(6).toString('hex')}`;
    const admin = knex({ client: 'pg', connection: process.env.DATABASE_URL, pool: { min: 0, max: 1 } });
    await admin.raw(`create database ${name}`);
    const url = new URL(process.env.DATABASE_URL);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    dropDatabase = async () => {
      await admin.raw(`drop database if exists ${name} with (force)`);
      await admin.destroy();
    };
  }

  const port = await freePort();
  const storePrefix = `bench:${randomBytes(6).toString('hex')}:`;
  const config = loadConfig({
    NODE_ENV: production ? 'production' : 'development',
    PORT: String(port),
    HOST: '127.0.0.1',
    ISSUER: `http://127.0.0.1:${port}/oauth2`,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    STORE_PREFIX: storePrefix,
    DATA_DIR: dataDir,
    COOKIE_SECRETS: randomBytes(32).toString('base64url'),
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    SEED_DEMO: 'false',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    // The limiter still runs on every token request; its budget must not cut the bench short.
    OAUTH_RATE_LIMIT_PER_MINUTE: '1000000',
  });
  const ctx = await createContext(config);
  await migrateLatest(ctx.db);

  // What one grant costs in I/O: PostgreSQL queries and Store calls, counted around timed runs.
  const io = { dbQueries: 0, storeCalls: 0 };
  ctx.db.on('query', () => (io.dbQueries += 1));
  const store = ctx.store as unknown as Record<string, unknown>;
  for (const method of ['get', 'getWithReference', 'claimAndWrite', 'set', 'setIndexed', 'setIfAbsent', 'getDel', 'del', 'incr', 'ttl', 'sadd', 'smembers', 'srem']) {
    const original = store[method] as (...args: unknown[]) => Promise<unknown>;
    store[method] = (...args: unknown[]) => {
      io.storeCalls += 1;
      return original.apply(ctx.store, args);
    };
  }

  const { app, provider } = await createApp(ctx);
  const server = await listen(app, port);
  await upsertClient(ctx.db, { client_id: clientId, redirect_uris: [redirectUri], client_secret: clientSecret });
  const rows: { id: string }[] = await ctx.db('accounts')
    .insert(Array.from({ length: accountCount }, (_, i) => ({ email: `tokens${i}@example.com`, name: `Token ${i}`, is_user: true, email_verified: true })))
    .returning('id');
  const accounts = rows.map((row) => row.id);

  let minted = 0;
  serve({
    tokenUrl: `${config.issuer}/token`,
    description: `Nyckel on ${ctx.store.kind === 'redis' ? 'Redis' : 'in-process store'} + ${databaseUrl ? 'PostgreSQL' : 'PGlite (embedded, in this process)'}, NODE_ENV=${config.env}, LOG_LEVEL=${config.logLevel}`,
    mint: async (count) => {
      const codes = await mintCodes(provider, accounts, count, minted);
      minted += count;
      return codes;
    },
    io: () => ({ ...io }),
    cleanup: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      if (ctx.store.kind === 'redis') {
        const keys = (await ctx.store.scan('')).map(({ key }) => key);
        for (let i = 0; i < keys.length; i += 500) await ctx.store.del(...keys.slice(i, i + 500));
      }
      await Promise.allSettled([ctx.db.destroy(), ctx.store.close(), ctx.mailer.close()]);
      await dropDatabase();
      rmSync(dataDir, { recursive: true, force: true });
    },
  });
} catch (error) {
  reportStartupFailure(error);
}
