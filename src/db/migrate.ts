import type { Knex } from 'knex';
import { migrations } from '../../migrations/index.ts';
import type { Db } from './knex.ts';

const source: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name]!,
};

const options: Knex.MigratorConfig = { migrationSource: source, tableName: 'knex_migrations' };

export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = (await db.migrate.latest(options)) as [number, string[]];
  return applied;
}

export async function migrateRollbackAll(db: Db): Promise<string[]> {
  const [, rolledBack] = (await db.migrate.rollback(options, true)) as [number, string[]];
  return rolledBack;
}
