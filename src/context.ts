import type { Logger } from 'pino';
import type { Config } from './config/index.ts';
import type { SecretBox } from './crypto/secret-box.ts';
import type { Db } from './db/knex.ts';
import type { Mailer } from './mail/mailer.ts';
import type { Store } from './store/store.ts';

/**
 * Everything a service needs from the outside world, created once in main.ts (or a test) and
 * passed down. `now` is the clock: tests move time without sleeping.
 */
export interface Context {
  config: Config;
  db: Db;
  store: Store;
  mailer: Mailer;
  logger: Logger;
  secretBox: SecretBox;
  now: () => Date;
}
