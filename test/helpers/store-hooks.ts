import type { Store } from '../../src/store/store.ts';

/** The store's reads of one key, which a race test can step in after. */
type KeyedRead = 'get' | 'getDel' | 'smembers';

/**
 * Puts a race in order: runs `meanwhile` once, as soon as the next `method` call for `key` has its
 * answer and before its caller goes on with it. Other keys' calls pass through untouched.
 */
export function afterNextRead(store: Store, method: KeyedRead, key: string, meanwhile: () => Promise<unknown>): void {
  const original = store[method];
  const read = original.bind(store) as (key: string) => Promise<unknown>;
  (store as unknown as Record<KeyedRead, (key: string) => Promise<unknown>>)[method] = async (asked: string) => {
    const answer = await read(asked);
    if (asked === key) {
      (store as unknown as Record<KeyedRead, unknown>)[method] = original;
      await meanwhile();
    }
    return answer;
  };
}
