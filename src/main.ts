import { createServer } from 'node:http';
import { join } from 'node:path';
import pino from 'pino';
import { ConfigError, loadConfig, type Config } from './config/index.ts';
import type { Context } from './context.ts';
import { createSecretBox } from './crypto/secret-box.ts';
import { exitIfDataDirLocked } from './db/data-dir-lock.ts';
import { createDb } from './db/knex.ts';
import { migrateLatest } from './db/migrate.ts';
import { answerClientError } from './http/error-handler.ts';
import { createMailer } from './mail/mailer.ts';
import { createStore } from './store/create-store.ts';
import { seedDemo } from '../seeds/demo.ts';

/** How long in-flight requests get to finish after SIGTERM before connections are cut. */
const shutdownGraceMs = 8000;

function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`nyckel: ${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
}

export async function createContext(config: Config): Promise<Context> {
  const logger = pino({ level: config.logLevel, redact: ['req.headers.authorization', 'req.headers.cookie'] });
  const db = await createDb({ databaseUrl: config.databaseUrl, dataDir: config.databaseUrl ? undefined : config.dataDir });
  const store = createStore({ redisUrl: config.redisUrl, prefix: config.storePrefix });
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, outboxDir: join(config.dataDir, 'outbox'), logger });
  return { config, db, store, mailer, logger, secretBox: createSecretBox(config.encryptionKey), now: () => new Date() };
}

export async function main(): Promise<void> {
  const config = configOrExit();
  // Loaded after the configuration is known good, so a bad variable fails fast.
  const [{ createApp }, { settleSecurityNotices, startNoticeRetries }] = await Promise.all([import('./app.ts'), import('./profile/security-notice.ts')]);
  const ctx = await createContext(config).catch(exitIfDataDirLocked);
  await migrateLatest(ctx.db);
  if (config.seedDemo) await seedDemo(ctx);

  const { app } = await createApp(ctx);
  const server = createServer(app);
  server.keepAliveTimeout = 5000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.on('clientError', answerClientError);
  server.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    ctx.logger.info({ port, issuer: config.issuer, database: config.databaseUrl ? 'postgresql' : 'embedded', store: ctx.store.kind }, 'Nyckel is listening');
  });

  // Security notices whose mail failed get another try every minute (profile/security-notice.ts).
  const stopNoticeRetries = startNoticeRetries(ctx);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    stopNoticeRetries();
    ctx.logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => server.closeAllConnections(), shutdownGraceMs);
    force.unref();
    server.close(async () => {
      clearTimeout(force);
      // Notices the last requests kept are mailed before the mailer and the database close.
      await settleSecurityNotices();
      await Promise.allSettled([ctx.db.destroy(), ctx.store.close(), ctx.mailer.close()]);
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

if (import.meta.main) {
  await main();
}
