import type { Socket } from 'node:net';
import { Redis } from 'ioredis';
import { CommandDeadlines } from './command-deadlines.ts';
import { asStoreError } from './redis-errors.ts';
import { claimAndWriteLua, getWithReferenceLua, incrLua, replaceIfUnchangedLua, saddLua, setIndexedLua, type ScriptedRedis } from './redis-scripts.ts';
import { StoreUnavailableError, toTtlSeconds, type ClaimSpec, type IndexedWrite, type Store } from './store.ts';

export type RedisStoreOptions =
  /** `logger` hears of the connection failures of the store's own client. */
  | { url: string; prefix: string; logger?: ConnectionLogger }
  /** A client owned by the caller: the store uses it and never quits it. */
  | { client: Redis; prefix: string };

/** The part of a logger the store writes to; pino's fits. */
export interface ConnectionLogger {
  error(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

/**
 * Client settings that turn an outage into a fast StoreUnavailableError (the HTTP layer answers
 * 503) instead of requests hanging, while the client keeps reconnecting on its own.
 * - commandTimeoutMs bounds every command, including those queued while (re)connecting, so a
 *   blackholed server costs at most ~2 s per request. The store keeps these deadlines itself
 *   (src/store/command-deadlines.ts), not through ioredis's per-command timers.
 * - maxRetriesPerRequest 1: queued commands are failed after the second failed reconnect.
 * - retryStrategy never gives up (no null) and waits at most 1 s, so service resumes within a
 *   second of Redis coming back.
 * The offline queue stays on so commands issued right after start-up wait for the first connection.
 */
export const commandTimeoutMs = 2_000;

export const redisClientOptions = {
  connectTimeout: 2_000,
  maxRetriesPerRequest: 1,
  retryStrategy: (attempt: number) => Math.min(attempt * 100, 1_000),
  // Off: RedisStore batches its commands' socket writes itself (see #batchWrites), without
  // ioredis building a Pipeline object per batch, which cost more CPU than the commands.
  enableAutoPipelining: false,
} as const;

/** Escapes SCAN MATCH's glob syntax so a key prefix matches only itself. */
function escapeGlob(text: string): string {
  return text.replace(/[\\*?[\]]/g, '\\$&');
}

/**
 * Tells the operator why Redis is unavailable, where callers only see StoreUnavailableError: the
 * first failure of an outage, each different one during it (a refused connection, then a refused
 * password), and the recovery. ioredis emits 'error' on every failed reconnect, up to one a second;
 * without a listener it would print each. Only message and code are logged: ioredis attaches the
 * failed command to its errors, AUTH's password among the arguments. The URL loses its credentials.
 */
function logConnectionChanges(client: Redis, url: string, logger: ConnectionLogger | undefined): void {
  const { protocol, host } = new URL(url);
  const redis = `${protocol}//${host}`;
  let failure: string | undefined;
  client.on('error', (error: NodeJS.ErrnoException) => {
    const cause = `${error.code ?? ''} ${error.message}`;
    if (cause === failure) return;
    failure = cause;
    logger?.error({ redis, err: { message: error.message, code: error.code } }, 'Redis connection failed; reconnecting');
  });
  client.on('ready', () => {
    if (failure === undefined) return;
    failure = undefined;
    logger?.info({ redis }, 'Redis connection restored');
  });
}

export class RedisStore implements Store {
  readonly kind = 'redis' as const;
  /** The ioredis client, for libraries that take one (rate-limiter-flexible). Keys there are not prefixed. */
  readonly client: Redis;
  readonly #prefix: string;
  readonly #ownsClient: boolean;
  /** On a client of its own only; a caller's client keeps whatever deadlines it was given. */
  readonly #deadlines: CommandDeadlines | undefined;
  /** This loop iteration's commands are being gathered in the socket's buffer. */
  #corked = false;

  constructor(options: RedisStoreOptions) {
    this.#prefix = options.prefix;
    if ('client' in options) {
      this.client = options.client;
      this.#ownsClient = false;
      this.#deadlines = undefined;
    } else {
      this.client = new Redis(options.url, { ...redisClientOptions });
      this.#ownsClient = true;
      logConnectionChanges(this.client, options.url, options.logger);
      // Every command written while connected, the store's and those of the client's other users
      // (rate-limiter-flexible), joins the loop iteration's socket write (#batchWrites), and has
      // a deadline. Only on a client of its own: a caller's client keeps its methods, and its
      // commands are neither batched nor given deadlines.
      const deadlines = (this.#deadlines = new CommandDeadlines(this.client, commandTimeoutMs));
      const send = this.client.sendCommand.bind(this.client);
      this.client.sendCommand = (command, stream) => {
        deadlines.watch(command);
        this.#batchWrites();
        return send(command, stream);
      };
    }
    // EVALSHA, falling back to EVAL once per connection; batched like any other command.
    this.client.defineCommand('nyckelSetIndexed', { lua: setIndexedLua });
    this.client.defineCommand('nyckelIncr', { lua: incrLua });
    this.client.defineCommand('nyckelSadd', { lua: saddLua });
    this.client.defineCommand('nyckelGetWithReference', { lua: getWithReferenceLua });
    this.client.defineCommand('nyckelClaimAndWrite', { lua: claimAndWriteLua });
    this.client.defineCommand('nyckelReplaceIfUnchanged', { lua: replaceIfUnchangedLua });
  }

  #key(key: string): string {
    return this.#prefix + key;
  }

  /**
   * Runs one command and maps connection failures, and the replies by which Redis says it cannot
   * serve right now, to StoreUnavailableError; its other replies (WRONGTYPE, a script error and
   * the like) are bugs, not outages (redis-errors.ts).
   */
  async #run<T>(command: () => Promise<T>): Promise<T> {
    // While reconnecting the server is known to be gone: fail now rather than queue and time out.
    if (this.client.status === 'reconnecting' || this.client.status === 'end') {
      throw new StoreUnavailableError(`Redis is unavailable (${this.client.status})`);
    }
    try {
      return await command();
    } catch (error) {
      throw asStoreError(error);
    }
  }

  /**
   * Every command this loop iteration sends leaves in one socket write: the socket is corked at
   * the first and uncorked in the check phase (setImmediate), as ioredis's auto-pipelining would
   * batch them, so concurrent requests' commands share a write (and Redis's answers a read). Each
   * write is a system call that costs more here than the command itself. ioredis writes a command
   * the moment it is issued when connected; before that its offline queue holds them, and there
   * is nothing to cork.
   */
  #batchWrites(): void {
    if (this.#corked || this.client.status !== 'ready') return;
    const socket = (this.client as unknown as { stream?: Socket }).stream;
    if (!socket) return;
    this.#corked = true;
    socket.cork();
    setImmediate(() => {
      this.#corked = false;
      socket.uncork();
    });
  }

  /** A pipeline's results, with per-command errors thrown like a single command's. */
  #exec(results: [Error | null, unknown][] | null): unknown[] {
    if (!results) throw new Error('Redis transaction was aborted');
    return results.map(([error, value]) => {
      if (error) throw error;
      return value;
    });
  }

  async get(key: string) {
    return this.#run(() => this.client.get(this.#key(key)));
  }

  async set(key: string, value: string, ttlSeconds: number) {
    const ttl = toTtlSeconds(ttlSeconds);
    await this.#run(() => this.client.set(this.#key(key), value, 'EX', ttl));
  }

  async setIfAbsent(key: string, value: string, ttlSeconds: number) {
    const ttl = toTtlSeconds(ttlSeconds);
    const reply = await this.#run(() => this.client.set(this.#key(key), value, 'EX', ttl, 'NX'));
    return reply === 'OK';
  }

  async replaceIfUnchanged(key: string, expected: string, value: string, ttlSeconds: number) {
    const ttl = toTtlSeconds(ttlSeconds);
    const reply = await this.#run(() => (this.client as ScriptedRedis).nyckelReplaceIfUnchanged(1, this.#key(key), expected, value, ttl));
    return reply === 1;
  }

  async getDel(key: string) {
    // GETDEL is one command, so of many concurrent callers exactly one receives the value.
    return this.#run(() => this.client.getdel(this.#key(key)));
  }

  async del(...keys: string[]) {
    if (keys.length === 0) return;
    await this.#run(() => this.client.del(...keys.map((key) => this.#key(key))));
  }

  async incr(key: string, ttlSeconds: number, by = 1) {
    const ttl = toTtlSeconds(ttlSeconds);
    // EXPIRE NX sets the TTL only on the increment that created the key, so a stream of attempts
    // cannot keep a lockout alive; the counter never exists without a TTL.
    const count = await this.#run(() => (this.client as ScriptedRedis).nyckelIncr(1, this.#key(key), ttl, by));
    return Number(count);
  }

  async ttl(key: string) {
    const seconds = await this.#run(() => this.client.ttl(this.#key(key)));
    // -2: no such key. -1 (no expiry) cannot happen for keys written through a Store.
    return seconds === -2 ? null : seconds;
  }

  async sadd(key: string, member: string, ttlSeconds: number) {
    const ttl = toTtlSeconds(ttlSeconds);
    // NX gives a new set its TTL; GT only ever lengthens an existing one, so a short-lived member
    // never cuts the life of longer-lived ones.
    await this.#run(() => (this.client as ScriptedRedis).nyckelSadd(1, this.#key(key), ttl, member));
  }

  async setIndexed(key: string, value: string, ttlSeconds: number, sets: string[]) {
    const ttl = toTtlSeconds(ttlSeconds);
    const keys = [this.#key(key), ...sets.map((set) => this.#key(set))];
    return Number(await this.#run(() => (this.client as ScriptedRedis).nyckelSetIndexed(keys.length, ...keys, value, ttl, key)));
  }

  claimAndWrite(claim: ClaimSpec | null, writes: IndexedWrite[], requiredKey: string | undefined): Promise<boolean | 'gone'>;
  claimAndWrite(claim: ClaimSpec | null, writes: IndexedWrite[]): Promise<boolean>;
  async claimAndWrite(claim: ClaimSpec | null, writes: IndexedWrite[], requiredKey?: string): Promise<boolean | 'gone'> {
    const keys: string[] = [];
    const args: (string | number)[] = claim ? ['1', claim.value, toTtlSeconds(claim.ttlSeconds)] : ['0', '', ''];
    if (claim) keys.push(this.#key(claim.key));
    args.push(requiredKey === undefined ? '0' : '1');
    if (requiredKey !== undefined) keys.push(this.#key(requiredKey));
    for (const write of writes) {
      keys.push(this.#key(write.key), ...write.sets.map((set) => this.#key(set)));
      args.push(write.value, toTtlSeconds(write.ttlSeconds), write.key, write.sets.length);
    }
    const reply = await this.#run(() => (this.client as ScriptedRedis).nyckelClaimAndWrite(keys.length, ...keys, ...args));
    return reply === 2 ? 'gone' : reply === 1;
  }

  async getWithReference(key: string, alsoKeys: string[], ref: { field: string; prefix: string }) {
    const keys = [key, ...alsoKeys].map((k) => this.#key(k));
    const reply = await this.#run(() => (this.client as ScriptedRedis).nyckelGetWithReference(keys.length, ...keys, ref.field, this.#key(ref.prefix)));
    return { values: reply.slice(0, keys.length), referenced: reply[keys.length] ?? null };
  }

  async smembers(key: string) {
    return this.#run(() => this.client.smembers(this.#key(key)));
  }

  async srem(key: string, member: string) {
    await this.#run(() => this.client.srem(this.#key(key), member));
  }

  async scan(prefix: string) {
    const pattern = `${escapeGlob(this.#key(prefix))}*`;
    const keys = new Set<string>();
    let cursor = '0';
    do {
      const [next, batch] = await this.#run(() => this.client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000));
      for (const key of batch) keys.add(key);
      cursor = next;
    } while (cursor !== '0');

    const found: { key: string; ttl: number }[] = [];
    if (keys.size === 0) return found;
    const pipeline = this.client.pipeline();
    for (const key of keys) pipeline.ttl(key);
    const ttls = await this.#run(async () => this.#exec(await pipeline.exec()));
    [...keys].forEach((key, index) => {
      const ttl = Number(ttls[index]);
      // A key may expire between SCAN and TTL.
      if (ttl !== -2) found.push({ key: key.slice(this.#prefix.length), ttl });
    });
    return found;
  }

  async ping() {
    await this.#run(() => this.client.ping());
  }

  async close() {
    if (!this.#ownsClient) return;
    this.#deadlines?.stop();
    if (this.client.status === 'ready') {
      await this.client.quit().catch(() => this.client.disconnect());
    } else {
      this.client.disconnect();
    }
  }
}
