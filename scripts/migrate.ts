/** `npm run migrate [-- down]`: applies every migration, or rolls all back with `down`. */
import { migrateLatest, migrateRollbackAll } from '../src/db/migrate.ts';
import { ConfigError, loadConfig } from '../src/config/index.ts';
import { exitIfDataDirLocked } from '../src/db/data-dir-lock.ts';
import { createDb } from '../src/db/knex.ts';
import { databaseName, exitWith } from '../src/main.ts';

const args = process.argv.slice(2);
if (args.length > 1 || (args.length === 1 && args[0] !== 'down')) {
  console.error('usage: npm run migrate [-- down]   (apply every migration, or roll all back with down)');
  process.exit(64);
}

try {
  const config = loadConfig();
  // Not on an embedded database the server has open (data-dir-lock.ts): a message, not a stack trace.
  const db = await createDb({ databaseUrl: config.databaseUrl, dataDir: config.databaseUrl ? undefined : config.dataDir }).catch(exitIfDataDirLocked);
  const down = args[0] === 'down';
  const names = await (down ? migrateRollbackAll(db) : migrateLatest(db)).catch(exitWith(`cannot migrate ${databaseName(config)}`));
  console.log(names.length ? `${down ? 'Rolled back' : 'Applied'}: ${names.join(', ')}` : 'Nothing to do.');
  await db.destroy();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`nyckel: ${error.message}`);
    process.exit(78);
  }
  throw error;
}
