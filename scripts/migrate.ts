/** `npm run migrate [-- down]`: applies every migration, or rolls all back with `down`. */
import { migrateLatest, migrateRollbackAll } from '../src/db/migrate.ts';
import { ConfigError, loadConfig } from '../src/config/index.ts';
import { exitIfDataDirLocked } from '../src/db/data-dir-lock.ts';
import { createDb } from '../src/db/knex.ts';

try {
  const config = loadConfig();
  // Not on an embedded database the server has open (data-dir-lock.ts): a message, not a stack trace.
  const db = await createDb({ databaseUrl: config.databaseUrl, dataDir: config.databaseUrl ? undefined : config.dataDir }).catch(exitIfDataDirLocked);
  const down = process.argv[2] === 'down';
  const names = down ? await migrateRollbackAll(db) : await migrateLatest(db);
  console.log(names.length ? `${down ? 'Rolled back' : 'Applied'}: ${names.join(', ')}` : 'Nothing to do.');
  await db.destroy();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`nyckel: ${error.message}`);
    process.exit(78);
  }
  throw error;
}
