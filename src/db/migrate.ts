import type { Knex } from 'knex';
import { migrations } from '../../migrations/index.ts';
import type { Db } from './knex.ts';

const source: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name]!,
};

const options: Knex.MigratorConfig = { migrationSource: source, tableName: 'knex_migrations' };

/** The advisory lock every Nyckel instance takes to migrate ('nyck'). */
const migrationLockKey = 0x6e79636b;

/**
 * Applies the migrations not yet applied. On PostgreSQL under an advisory lock held by a
 * transaction of its own for the whole run: instances starting together on an empty database
 * would otherwise race to create knex's own bookkeeping tables, which knex does outside its
 * migration lock (duplicate type or relation errors, and the start fails). The migrations run on
 * other connections of the pool; the second instance waits, then finds nothing left to do. The
 * embedded database (one connection, one process: data-dir-lock.ts) needs no lock.
 */
export async function migrateLatest(db: Db): Promise<string[]> {
  const latest = async () => ((await db.migrate.latest(options)) as [number, string[]])[1];
  if (db.client.config.client !== 'pg') return latest();
  return db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(?)', [migrationLockKey]);
    return latest();
  });
}

export async function migrateRollbackAll(db: Db): Promise<string[]> {
  const [, rolledBack] = (await db.migrate.rollback(options, true)) as [number, string[]];
  return rolledBack;
}
