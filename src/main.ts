import { createServer, type RequestListener, type Server } from 'node:http';
import { join } from 'node:path';
import pino from 'pino';
import { ConfigError, loadConfig, type Config } from './config/index.ts';
import type { Context } from './context.ts';
import { createSecretBox } from './crypto/secret-box.ts';
import { exitIfDataDirLocked } from './db/data-dir-lock.ts';
import { createDb } from './db/knex.ts';
import { migrateLatest } from './db/migrate.ts';
import { errors } from './http/app-error.ts';
import { drainable } from './http/drain.ts';
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
  const db = await createDb({ databaseUrl: config.databaseUrl, dataDir: config.databaseUrl ? undefined : config.dataDir, logger });
  const store = createStore({ redisUrl: config.redisUrl, prefix: config.storePrefix, logger });
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, outboxDir: join(config.dataDir, 'outbox'), logger });
  return { config, db, store, mailer, logger, secretBox: createSecretBox(config.encryptionKey), now: () => new Date() };
}

/**
 * Ends start-up on a failure outside Nyckel (a database it cannot reach, a port in use) with one
 * line naming the setting to check and 69 (EX_UNAVAILABLE): a stack trace would hide which one.
 */
export function exitWith(what: string): (error: unknown) => never {
  return (error) => {
    process.stderr.write(`nyckel: ${what}: ${describeError(error)}\n`);
    process.exit(69);
  };
}

/** An error as one line. A connection refused by both addresses of `localhost` is an AggregateError without a message. */
function describeError(error: unknown): string {
  if (error instanceof AggregateError && !error.message) return error.errors.map(describeError).join('; ');
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
}

/** The database migrations run on, for messages: a URL without its credentials. */
export function databaseName(config: Config): string {
  if (!config.databaseUrl) return `the embedded database in ${config.dataDir}`;
  const { protocol, host, pathname } = new URL(config.databaseUrl);
  return `the database at DATABASE_URL (${protocol}//${host}${pathname})`;
}

/**
 * The answer while migrations and seeding run: the port is taken before them, the app comes after.
 * `/healthz` says the process is alive (a liveness probe must not restart it mid-migration);
 * everything else, `/readyz` included, is 503 until the app is ready.
 */
const starting: RequestListener = (req, res) => {
  if (req.method === 'GET' && req.url === '/healthz') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok' }));
    return;
  }
  res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' }).end(JSON.stringify(errors.unavailable().toBody()));
};

function listen(server: Server, config: Config): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

export async function main(): Promise<void> {
  const config = configOrExit();
  // Loaded after the configuration is known good, so a bad variable fails fast.
  const [{ createApp }, { settleSecurityNotices, startNoticeRetries }] = await Promise.all([import('./app.ts'), import('./profile/security-notice.ts')]);
  const ctx = await createContext(config).catch(exitIfDataDirLocked);

  // The port is taken before migrations and seeding, so a port in use is told at once.
  const server = createServer(starting);
  const drainer = drainable(server);
  server.keepAliveTimeout = 5000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.on('clientError', answerClientError);
  await listen(server, config).catch(exitWith(`cannot listen on ${config.host}:${config.port} (HOST, PORT)`));
  // Once listening, an error is a failed accept (out of file descriptors): the server goes on.
  server.on('error', (error) => ctx.logger.error({ err: error }, 'HTTP server error'));

  await migrateLatest(ctx.db).catch(exitWith(`cannot migrate ${databaseName(config)}`));
  if (config.seedDemo) await seedDemo(ctx);
  const { app } = await createApp(ctx);
  server.off('request', starting).on('request', app);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  ctx.logger.info({ port, issuer: config.issuer, database: config.databaseUrl ? 'postgresql' : 'embedded', store: ctx.store.kind }, 'Nyckel is listening');

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
    drainer.drain();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

if (import.meta.main) {
  await main();
}
