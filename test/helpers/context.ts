import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import knex from 'knex';
import pino, { type Logger } from 'pino';
import { loadConfig, type Config } from '../../src/config/index.ts';
import type { Context } from '../../src/context.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { createDb, type Db } from '../../src/db/knex.ts';
import { migrateLatest } from '../../src/db/migrate.ts';
import { createMailer } from '../../src/mail/mailer.ts';
import { createStore } from '../../src/store/create-store.ts';

/**
 * A fresh database and store namespace for one test file. With DATABASE_URL set, a new database
 * is created on that server (and dropped afterwards), so test files never see each other's
 * rows; without it, an in-memory PGlite started from a migrated template. With REDIS_URL, keys get a random prefix.
 */
const migrationsDir = resolve(import.meta.dirname, '../../migrations');

/**
 * A dump of an embedded database with every migration applied, made once per set of migrations
 * and kept in the system's temporary folder: starting PGlite from it takes ~0.7 s, a new one ~3 s,
 * once per test file. Written under a temporary name and renamed, so a worker never reads half of
 * one another is writing. Each test still runs migrateLatest on it (nothing to do, ~0.1 s).
 */
async function migratedTemplate(): Promise<Blob> {
  const hash = createHash('sha256').update(readFileSync(resolve(import.meta.dirname, '../../node_modules/@electric-sql/pglite/package.json')));
  for (const name of readdirSync(migrationsDir).sort()) hash.update(name).update(readFileSync(join(migrationsDir, name)));
  const path = join(tmpdir(), `nyckel-pglite-template-${hash.digest('hex').slice(0, 16)}.tar`);
  if (existsSync(path)) return new Blob([readFileSync(path)]);
  const db = await createDb({});
  try {
    await migrateLatest(db);
    const { pglite } = (db.client.config.connection as () => { pglite: { dumpDataDir(compression: 'none'): Promise<Blob> } })();
    const dump = await pglite.dumpDataDir('none');
    const partial = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, path);
    return dump;
  } finally {
    await db.destroy();
  }
}

export async function createTestDb(): Promise<{ db: Db; databaseUrl: string | undefined; drop: () => Promise<void> }> {
  const baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) {
    const db = await createDb({ loadDataDir: await migratedTemplate() });
    await migrateLatest(db);
    return { db, databaseUrl: undefined, drop: () => db.destroy() };
  }
  const name = `nyckel_test_${randomBytes(6).toString('hex')}`;
  const admin = knex({ client: 'pg', connection: baseUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`create database ${name}`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const db = await createDb({ databaseUrl: url.toString() });
  await migrateLatest(db);
  return {
    db,
    databaseUrl: url.toString(),
    drop: async () => {
      await db.destroy();
      await admin.raw(`drop database if exists ${name} with (force)`);
      await admin.destroy();
    },
  };
}

export interface TestContext extends Context {
  /** Moves the injected clock. */
  advance(ms: number): void;
  dispose(): Promise<void>;
}

export interface TestContextOptions {
  /** SMTP URL of a test mail server (see mail-server.ts). */
  smtpUrl?: string;
  env?: Record<string, string>;
  /** The app's logger; silent unless TEST_LOG_LEVEL says otherwise. */
  logger?: Logger;
}

export async function createTestContext(options: TestContextOptions = {}): Promise<TestContext> {
  const { db, drop } = await createTestDb();
  const prefix = `test:${randomBytes(6).toString('hex')}:`;
  const config: Config = loadConfig({
    NODE_ENV: 'test',
    ISSUER: 'http://127.0.0.1:3000/oauth2',
    STORE_PREFIX: prefix,
    LOG_LEVEL: 'silent',
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    ...(options.smtpUrl ? { SMTP_URL: options.smtpUrl } : {}),
    ...options.env,
  });
  const logger = options.logger ?? pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  let offset = 0;
  const store = createStore({ redisUrl: config.redisUrl, prefix: config.storePrefix, now: () => Date.now() + offset });
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, outboxDir: `${config.dataDir}/outbox-test`, logger });
  return {
    config,
    db,
    store,
    mailer,
    logger,
    secretBox: createSecretBox(config.encryptionKey),
    now: () => new Date(Date.now() + offset),
    advance(ms) {
      offset += ms;
    },
    async dispose() {
      await mailer.close();
      // Redis is shared by every run on this machine: leave none of this context's keys behind
      // (a keyspace grown by leftovers slows down every SCAN after it).
      if (store.kind === 'redis') {
        const keys = (await store.scan('')).map(({ key }) => key);
        for (let i = 0; i < keys.length; i += 500) await store.del(...keys.slice(i, i + 500));
      }
      await store.close();
      await drop();
    },
  };
}
