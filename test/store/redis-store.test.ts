import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/create-store.ts';
import { RedisStore } from '../../src/store/redis-store.ts';
import { StoreUnavailableError } from '../../src/store/store.ts';
import { startRelay } from '../helpers/tcp-relay.ts';
import { storeContract } from './store.contract.ts';

const redisUrl = process.env.REDIS_URL;

async function makeRedisStore(prefix: string, url = redisUrl!) {
  const store = new RedisStore({ url, prefix });
  return {
    store,
    async cleanup() {
      const keys = await store.scan('');
      if (keys.length > 0) await store.del(...keys.map(({ key }) => key));
      await store.close();
    },
  };
}

/** The value of `key` from the first read that succeeds within 5 s (undefined if none does). */
async function firstAnswer(store: RedisStore, key: string): Promise<string | null | undefined> {
  const deadline = Date.now() + 5_000;
  let value: string | null | undefined;
  while (value === undefined && Date.now() < deadline) {
    value = await store.get(key).catch(() => undefined);
    if (value === undefined) await sleep(100);
  }
  return value;
}

if (redisUrl) {
  storeContract('RedisStore', makeRedisStore);
} else {
  describe.skip('RedisStore contract (skipped: set REDIS_URL to run it against a real Redis)', () => {
    it('needs REDIS_URL', () => {});
  });
}

describe('RedisStore when Redis is unreachable', () => {
  it('fails fast with StoreUnavailableError and ping() rejects', async () => {
    const store = new RedisStore({ url: 'redis://127.0.0.1:1', prefix: 'test:' });
    try {
      const started = Date.now();
      await expect(store.get('anything')).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.set('anything', 'x', 60)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await store.close();
    }
  });
});

describe.runIf(redisUrl)('RedisStore through an outage', () => {
  it('answers StoreUnavailableError while Redis is gone and recovers by itself', async () => {
    let relay = await startRelay(new URL(redisUrl!));
    const port = relay.port;
    const { store, cleanup } = await makeRedisStore(`test:outage:${randomBytes(6).toString('hex')}:`, `redis://127.0.0.1:${port}`);
    try {
      await store.set('k', 'before', 60);

      await relay.stop();
      const started = Date.now();
      await expect(store.get('k')).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(Date.now() - started).toBeLessThan(3_000);

      relay = await startRelay(new URL(redisUrl!), port);
      expect(await firstAnswer(store, 'k')).toBe('before');
    } finally {
      await cleanup().catch(() => {});
      await relay.stop();
    }
  });

  it('fails commands after ~2 s when Redis stops answering on an open connection, and carries on once it answers again', async () => {
    const relay = await startRelay(new URL(redisUrl!));
    const prefix = `test:stall:${randomBytes(6).toString('hex')}:`;
    const rawKey = `${prefix}raw`;
    const { store, cleanup } = await makeRedisStore(prefix, `redis://127.0.0.1:${relay.port}`);
    try {
      await store.set('k', 'before', 60);
      relay.freeze();
      const started = performance.now();
      const [stored, raw] = await Promise.allSettled([
        store.get('k'),
        // A command of another user of the client (rate-limiter-flexible), which has no store around it.
        store.client.incr(rawKey),
      ]);
      const waited = performance.now() - started;
      expect(stored.status === 'rejected' && stored.reason).toBeInstanceOf(StoreUnavailableError);
      expect(raw.status === 'rejected' && (raw.reason as Error).message).toBe('Command timed out');
      expect(waited).toBeGreaterThanOrEqual(1_900);
      expect(waited).toBeLessThan(3_000);

      // Still stalled: a new command fails without waiting out a deadline of its own.
      const again = performance.now();
      await expect(store.get('k')).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(performance.now() - again).toBeLessThan(1_000);

      // The stalled answers arrive late, in order, and each goes to the command it belongs to.
      relay.thaw();
      expect(await firstAnswer(store, 'k')).toBe('before');
      expect(await store.incr('n', 60)).toBe(1);
      expect(await store.client.get(rawKey)).toBe('1');
    } finally {
      relay.thaw();
      await store.client.del(rawKey).catch(() => {});
      await cleanup().catch(() => {});
      await relay.stop();
    }
  });

  it('fails a command after ~2 s when the connection opens but Redis never answers (the stalled ready check is swept)', async () => {
    const relay = await startRelay(new URL(redisUrl!));
    relay.freeze();
    const store = new RedisStore({ url: `redis://127.0.0.1:${relay.port}`, prefix: `test:never:${randomBytes(6).toString('hex')}:` });
    try {
      const started = performance.now();
      await expect(store.get('k')).rejects.toBeInstanceOf(StoreUnavailableError);
      const waited = performance.now() - started;
      expect(waited).toBeGreaterThanOrEqual(1_900);
      expect(waited).toBeLessThan(3_000);
    } finally {
      await store.close();
      await relay.stop();
    }
  });

  it('is what createStore returns for a Redis URL', async () => {
    const store = createStore({ redisUrl: redisUrl!, prefix: 'test:create:' });
    expect(store.kind).toBe('redis');
    expect(store).toBeInstanceOf(RedisStore);
    await store.ping();
    await store.close();
  });
});

describe.runIf(redisUrl)('RedisStore socket writes', () => {
  it("sends the commands of one loop iteration in one write, and each caller gets its own answer", async () => {
    const { store, cleanup } = await makeRedisStore(`test:writes:${randomBytes(6).toString('hex')}:`);
    try {
      await store.ping();
      // Writable's implementation hooks: one call is one system call on the socket.
      const socket = (store.client as unknown as { stream: Socket }).stream as Socket & { _write: unknown; _writev: unknown };
      let writes = 0;
      for (const hook of ['_write', '_writev'] as const) {
        const original = socket[hook] as (...args: unknown[]) => unknown;
        socket[hook] = function (this: Socket, ...args: unknown[]) {
          writes += 1;
          return original.apply(this, args);
        };
      }
      const answers = await Promise.all([
        // A command of another user of the client (as rate-limiter-flexible is), issued first.
        store.client.ping(),
        store.set('a', '1', 60),
        store.incr('n', 60),
        store.setIfAbsent('b', '2', 60),
        store.get('a'),
        store.getDel('b'),
      ]);
      expect(answers).toEqual(['PONG', undefined, 1, true, '1', '2']);
      expect(writes).toBe(1);
      // A later iteration's commands go in a write of their own.
      await new Promise((resolve) => setImmediate(resolve));
      expect(await store.incr('n', 60)).toBe(2);
      expect(writes).toBe(2);
    } finally {
      await cleanup();
    }
  });
});
