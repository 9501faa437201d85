import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { BatchedWindowLimiter, type LimitAnswer } from '../../src/http/batched-limit.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';
import { RedisStore } from '../../src/store/redis-store.ts';
import type { Store } from '../../src/store/store.ts';

const redisUrl = process.env.REDIS_URL;
const opened: Store[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) {
    const keys = await store.scan('');
    if (keys.length > 0) await store.del(...keys.map(({ key }) => key));
    await store.close();
  }
});

/** Two handles on one backend: a Redis server shared by two "instances", or one MemoryStore. */
function sharedStores(): [Store, Store] {
  const prefix = `test:${randomBytes(4).toString('hex')}:`;
  if (!redisUrl) {
    const store = new MemoryStore({ prefix });
    opened.push(store);
    return [store, store];
  }
  const stores: [Store, Store] = [new RedisStore({ url: redisUrl, prefix }), new RedisStore({ url: redisUrl, prefix })];
  opened.push(...stores);
  return stores;
}

const allowedCount = (answers: LimitAnswer[]) => answers.filter((answer) => answer.allowed).length;

describe('BatchedWindowLimiter', () => {
  it('admits exactly the budget in one process, then refuses with the seconds left in the window', async () => {
    const [store] = sharedStores();
    let now = 60_000 * 1000 + 15_000; // 15 s into a minute window
    const limiter = new BatchedWindowLimiter(store, { points: 5, duration: 60, prefix: 'rl:', now: () => now });
    const answers = await Promise.all(Array.from({ length: 8 }, () => limiter.hit('client-a')));
    expect(allowedCount(answers)).toBe(5);
    expect(answers[5]).toEqual({ allowed: false, retryAfterSeconds: 45 });
    // Another key has its own budget.
    expect(await limiter.hit('client-b')).toEqual({ allowed: true });
    // The counts reach the store: the shared count is what was admitted.
    await limiter.flush();
    expect(await store.get(`rl:client-a:${60_000 / 60}`)).toBe('5');
    // The next window starts afresh.
    now += 45_000;
    expect(await limiter.hit('client-a')).toEqual({ allowed: true });
  });

  it('stays exact in one process while a sync is under way: hits meanwhile count the ones being sent', async () => {
    const [store] = sharedStores();
    const limiter = new BatchedWindowLimiter(store, { points: 3, duration: 60, prefix: 'rl:' });
    // The store's answer to the sync is held back until the test lets it go.
    const incr = store.incr.bind(store);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    store.incr = async (key, ttl, by) => {
      await held;
      return incr(key, ttl, by);
    };
    try {
      for (let i = 0; i < 3; i += 1) expect(limiter.hit('ip')).toEqual({ allowed: true });
      const sync = limiter.flush();
      expect(limiter.hit('ip')).toMatchObject({ allowed: false });
      release();
      await sync;
      expect(limiter.hit('ip')).toMatchObject({ allowed: false });
    } finally {
      store.incr = incr;
    }
  });

  it('shares one budget between instances once their counts are synced', async () => {
    const [storeA, storeB] = sharedStores();
    const now = () => 120_000 * 1000 + 1_000;
    const a = new BatchedWindowLimiter(storeA, { points: 10, duration: 60, prefix: 'rl:', now });
    const b = new BatchedWindowLimiter(storeB, { points: 10, duration: 60, prefix: 'rl:', now });
    expect(allowedCount(await Promise.all(Array.from({ length: 7 }, () => a.hit('ip'))))).toBe(7);
    await a.flush();
    // B learns the shared count with its first sync; until then it counts its own hits.
    expect(allowedCount(await Promise.all(Array.from({ length: 2 }, () => b.hit('ip'))))).toBe(2);
    await b.flush();
    expect(allowedCount(await Promise.all(Array.from({ length: 5 }, () => b.hit('ip'))))).toBe(1);
    await b.flush();
    await a.hit('ip');
    await a.flush();
    expect(await a.hit('ip')).toMatchObject({ allowed: false });
  });

  it('syncs on its own within the sync interval', async () => {
    const [store] = sharedStores();
    const limiter = new BatchedWindowLimiter(store, { points: 100, duration: 60, prefix: 'rl:', syncMs: 20, now: () => 180_000 * 1000 });
    await limiter.hit('k');
    await limiter.hit('k');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await store.get('rl:k:3000')).toBe('2');
  });

  it('fails closed while its store cannot be reached, and recovers with it', async () => {
    const [store] = sharedStores();
    let down = false;
    const flaky: Store = new Proxy(store, {
      get(target, property, receiver) {
        if (property === 'incr' && down) return async () => Promise.reject(Object.assign(new Error('store down'), { name: 'StoreUnavailableError' }));
        const value = Reflect.get(target, property, receiver) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const limiter = new BatchedWindowLimiter(flaky, { points: 100, duration: 60, prefix: 'rl:', now: () => 240_000 * 1000 });
    expect(await limiter.hit('k')).toEqual({ allowed: true });
    down = true;
    await limiter.flush();
    // The failed sync is noticed: hits now wait for the store and carry its error.
    await expect(limiter.hit('k')).rejects.toThrow('store down');
    down = false;
    expect(await limiter.hit('k')).toEqual({ allowed: true });
    // Nothing was lost or double counted: the first hit and the last one.
    await limiter.flush();
    expect(await store.get('rl:k:4000')).toBe('2');
  });
});
