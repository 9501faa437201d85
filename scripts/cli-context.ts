import { ConfigError, loadConfig } from '../src/config/index.ts';
import type { Context } from '../src/context.ts';
import { exitIfDataDirLocked } from '../src/db/data-dir-lock.ts';
import { migrateLatest } from '../src/db/migrate.ts';
import { createContext, databaseName, exitWith } from '../src/main.ts';

/** The context of a one-shot command: configuration, database (migrated) and store. */
export async function withContext(run: (ctx: Context) => Promise<void>): Promise<void> {
  let config;
  try {
    config = loadConfig({ LOG_LEVEL: 'warn', ...process.env });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`nyckel: ${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
  // On the embedded database while the server runs, the command would write where the server
  // never reads (and its writes would be lost): refused with a message instead.
  const ctx = await createContext(config).catch(exitIfDataDirLocked);
  try {
    // A database it cannot reach: one line naming the setting and 69, as the server says it.
    await migrateLatest(ctx.db).catch(exitWith(`cannot migrate ${databaseName(config)}`));
    await run(ctx);
  } finally {
    await Promise.allSettled([ctx.db.destroy(), ctx.store.close(), ctx.mailer.close()]);
  }
}
