import { describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/create-store.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';
import { storeContract } from './store.contract.ts';

storeContract('MemoryStore', async (prefix) => {
  const store = new MemoryStore({ prefix });
  return { store, cleanup: () => store.close() };
});

describe('MemoryStore', () => {
  it('expires by the injected clock, so tests can move time without sleeping', async () => {
    let now = 1_000_000;
    const store = new MemoryStore({ now: () => now });
    await store.set('code', '123456', 600);
    now += 599_000;
    expect(await store.ttl('code')).toBe(1);
    now += 1_000;
    expect(await store.get('code')).toBeNull();
    await store.close();
  });

  it('is what createStore returns without a Redis URL, and honours the prefix', async () => {
    const store = createStore({ prefix: 'app:' });
    expect(store.kind).toBe('memory');
    await store.set('k', 'v', 60);
    expect(await store.scan('')).toEqual([{ key: 'k', ttl: 60 }]);
    await store.close();
  });
});
