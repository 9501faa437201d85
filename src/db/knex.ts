import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import knex, { type Knex } from 'knex';
import type { Logger } from 'pino';
import { lockDataDir } from './data-dir-lock.ts';

export type Db = Knex;

/** Where knex's own warnings go (a failed connection attempt, say): the server's logger, not stdout. */
export type DbLogger = Pick<Logger, 'warn' | 'error' | 'debug'>;

export interface DbOptions {
  /** PostgreSQL URL; absent means embedded PGlite. */
  databaseUrl?: string | undefined;
  logger?: DbLogger | undefined;
  /** Folder of the embedded database; absent means an in-memory PGlite (tests). */
  dataDir?: string | undefined;
  /**
   * An in-memory PGlite starts from this dump of a data directory (PGlite's dumpDataDir) instead
   * of an empty one: the tests' migrated template, ~0.7 s against ~3 s for a new database.
   */
  loadDataDir?: Blob | undefined;
}

/**
 * knex on PostgreSQL when a URL is given, otherwise on an in-process PGlite. PGlite has a single
 * connection, so no pool is configured for it and repositories pass transactions explicitly. An
 * embedded database in a directory is opened by one process at a time (data-dir-lock.ts): a second
 * open throws DataDirLockedError.
 */
export async function createDb(options: DbOptions): Promise<Db> {
  if (options.databaseUrl) {
    // Outages (test/resilience/postgres-down.test.ts): a connection that drops is marked broken by
    // knex and never handed out again; new ones are opened on demand (min 0). A failed connect
    // rejects the waiting query at once (knex's propagateCreateError), so while PostgreSQL is down
    // calls answer 503 within connectionTimeoutMillis instead of queueing, and the first call after
    // it returns gets a fresh connection: no restart needed. TCP keep-alive finds silently dead peers.
    return knex({
      client: 'pg',
      connection: { connectionString: options.databaseUrl, connectionTimeoutMillis: 5000, keepAlive: true },
      pool: { min: 0, max: 10, acquireTimeoutMillis: 10_000 },
      acquireConnectionTimeout: 10_000,
      ...(options.logger && { log: knexLog(options.logger) }),
    });
  }
  const [{ PGlite }, { pg_trgm }, { citext }, { default: ClientPgLite }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite/contrib/pg_trgm'),
    import('@electric-sql/pglite/contrib/citext'),
    import('knex-pglite'),
  ]);
  let dataDir: string | undefined;
  let release = () => {};
  if (options.dataDir) {
    mkdirSync(options.dataDir, { recursive: true });
    release = lockDataDir(options.dataDir);
    dataDir = join(options.dataDir, 'pglite');
  }
  let pglite: InstanceType<typeof PGlite>;
  try {
    pglite = await PGlite.create({ dataDir, extensions: { pg_trgm, citext }, ...(options.loadDataDir && { loadDataDir: options.loadDataDir }) });
  } catch (error) {
    release();
    throw error;
  }
  const db = knex({
    client: ClientPgLite,
    dialect: 'postgres',
    connection: () => ({ pglite }) as object,
    acquireConnectionTimeout: 10_000,
  } as Knex.Config);
  return releasedOnDestroy(db, pglite, release);
}

/**
 * The lock of the data directory is released once PGlite is closed. knex closes PGlite only if it
 * ever handed out its connection, so an unused one is closed here too. (knex.destroy cannot be
 * replaced, it is read-only; it calls its client's destroy.)
 */
function releasedOnDestroy(db: Db, pglite: { closed: boolean; close(): Promise<void> }, release: () => void): Db {
  const client = db.client as { destroy(): Promise<void> };
  const destroy = client.destroy.bind(client);
  client.destroy = async () => {
    try {
      await destroy();
      if (!pglite.closed) await pglite.close();
    } finally {
      release();
    }
  };
  return db;
}

/** knex's log functions take a message (or an object); each goes to the logger as `msg`, one line. */
function knexLog(logger: DbLogger): Knex.Config['log'] {
  const line = (message: unknown) => (message instanceof Error ? message.message : typeof message === 'string' ? message : JSON.stringify(message));
  return {
    warn: (message: unknown) => logger.warn({ source: 'knex' }, line(message)),
    error: (message: unknown) => logger.error({ source: 'knex' }, line(message)),
    debug: (message: unknown) => logger.debug({ source: 'knex' }, line(message)),
    deprecate: (method: string, alternative: string) => logger.warn({ source: 'knex' }, `${method} is deprecated, use ${alternative}`),
  };
}
