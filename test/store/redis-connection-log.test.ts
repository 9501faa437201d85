import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/create-store.ts';
import { RedisStore, type ConnectionLogger } from '../../src/store/redis-store.ts';
import { stdSerializers } from 'pino';
import { StoreUnavailableError } from '../../src/store/store.ts';
import { freePort } from '../helpers/free-port.ts';

const password = 's3cret-redis-password';

interface Line {
  level: 'error' | 'info';
  fields: object;
  msg: string;
}

/** A logger that keeps what it is given. */
function captureLog(): ConnectionLogger & { lines: Line[] } {
  const lines: Line[] = [];
  const keep = (level: Line['level']) => (fields: object, msg: string) => void lines.push({ level, fields, msg });
  return { lines, error: keep('error'), info: keep('info') };
}

const wrongPassword = '-WRONGPASS invalid username-password pair or user is disabled.\r\n';

interface FakeRedis {
  port: number;
  connections(): number;
  /** Answers every command from now on with `reply`. */
  answer(reply: string): void;
  close(): Promise<void>;
}

/**
 * A server speaking Redis's protocol that gives every command the same reply: a wrong password's
 * error, or `+OK`, which ioredis takes for a ready server.
 */
async function fakeRedis(reply: string, port = 0): Promise<FakeRedis> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      // One reply per command: each is an array of bulk strings, `*<count>` at the start of a line.
      for (const _command of chunk.toString('latin1').matchAll(/(?:^|\r\n)\*\d+\r\n/g)) socket.write(reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    answer: (next) => (reply = next),
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

describe('a RedisStore that cannot connect', () => {
  it('logs a refused connection once, however often it retries, without the password', async () => {
    const port = await freePort();
    const log = captureLog();
    // Through createStore, as main.ts builds it.
    const store = createStore({ redisUrl: `redis://:${password}@127.0.0.1:${port}`, prefix: 'log:', logger: log });
    cleanups.push(() => store.close());

    // Retries come 100, 200, 300 ms apart: by 800 ms the client has failed at least four times.
    await sleep(800);
    await expect(store.ping()).rejects.toThrow(StoreUnavailableError);
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatchObject({ level: 'error', fields: { redis: `redis://127.0.0.1:${port}`, err: { code: 'ECONNREFUSED' } } });
    expect(JSON.stringify(log.lines)).not.toContain(password);
  });

  it('logs a refused password once, naming the cause, without the password', async () => {
    const server = await fakeRedis(wrongPassword);
    cleanups.push(server.close);
    const log = captureLog();
    const store = new RedisStore({ url: `redis://nyckel:${password}@127.0.0.1:${server.port}`, prefix: 'log:', logger: log });
    cleanups.push(() => store.close());

    await until(() => server.connections() >= 3, 'three connection attempts');
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]!.level).toBe('error');
    expect(JSON.stringify(log.lines[0]!.fields)).toContain('WRONGPASS');
    expect(JSON.stringify(log.lines)).not.toContain(password);
  });

  it('logs each change of cause and the recovery, once each', async () => {
    const port = await freePort();
    const log = captureLog();
    const store = new RedisStore({ url: `redis://nyckel:${password}@127.0.0.1:${port}`, prefix: 'log:', logger: log });
    cleanups.push(() => store.close());
    await until(() => log.lines.length === 1, 'the refused connection');

    // A server comes up on the port and refuses the password: a new cause, logged once.
    const server = await fakeRedis(wrongPassword, port);
    cleanups.push(server.close);
    await until(() => server.connections() >= 3, 'three attempts at the refusing server');

    // Then it accepts: the client is ready again.
    server.answer('+OK\r\n');
    await until(() => log.lines.length === 3, 'the recovery');
    await sleep(300);
    expect(log.lines.map(({ level, msg }) => `${level}: ${msg}`)).toEqual([
      'error: Redis connection failed; reconnecting',
      'error: Redis connection failed; reconnecting',
      'info: Redis connection restored',
    ]);
    expect(log.lines[0]!.fields).toMatchObject({ err: { code: 'ECONNREFUSED' } });
    expect(JSON.stringify(log.lines[1]!.fields)).toContain('WRONGPASS');
    expect(JSON.stringify(log.lines)).not.toContain(password);
  });
});

/** What the app's logger (pino, its default `err` serializer) writes of an error, its cause included. */
const serializeError = (error: unknown) => stdSerializers.err(error as Error);

describe('a RedisStore whose server answers that it cannot serve now', () => {
  /** A store on a fake server that took it for ready ('+OK') and now answers every command with `reply`. */
  async function storeAnswered(reply: string): Promise<RedisStore> {
    const server = await fakeRedis('+OK\r\n');
    cleanups.push(server.close);
    const store = new RedisStore({ url: `redis://127.0.0.1:${server.port}`, prefix: 'outage:', logger: captureLog() });
    cleanups.push(() => store.close());
    await until(() => store.client.status === 'ready', 'the client to be ready');
    server.answer(reply);
    return store;
  }

  it.each([
    "READONLY You can't write against a read only replica.",
    'OOM command not allowed when used memory > maxmemory.',
    'LOADING Redis is loading the dataset in memory',
    'BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSCRIPT.',
    "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
    'TRYAGAIN Multiple keys request during rehashing of slot',
    'CLUSTERDOWN The cluster is down',
    'MISCONF Redis is configured to save RDB snapshots, but it is currently not able to persist on disk.',
    'NOREPLICAS Not enough good replicas to write.',
  ])('turns "-%s" into StoreUnavailableError (503), for commands and scripts alike, naming no key or value', async (reply) => {
    const store = await storeAnswered(`-${reply}\r\n`);
    await expect(store.set('k', 'v', 60)).rejects.toThrow(StoreUnavailableError);
    const failure = await store.claimAndWrite({ key: 'oidc:consumed:RefreshToken:secret-token', value: '1', ttlSeconds: 60 }, []).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StoreUnavailableError);
    expect(JSON.stringify(serializeError(failure))).not.toContain('secret-token');
  });

  it('passes a genuine command or script error through as the bug it is, not as an outage', async () => {
    for (const reply of ['WRONGTYPE Operation against a key holding the wrong kind of value', "ERR wrong number of arguments for 'set' command"]) {
      const store = await storeAnswered(`-${reply}\r\n`);
      const failure = store.set('session:secret-session-id', 'secret-value', 60);
      await expect(failure).rejects.toThrow(reply);
      await expect(failure).rejects.not.toBeInstanceOf(StoreUnavailableError);
      // As the error handler would log it: the command's key and value are not in it.
      const logged = JSON.stringify(serializeError(await failure.catch((error: unknown) => error)));
      expect(logged).toContain(reply.split(' ')[0]);
      expect(logged).not.toMatch(/secret-session-id|secret-value/);
    }
  });
});
