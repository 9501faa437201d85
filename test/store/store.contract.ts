import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.ts';

export interface StoreUnderTest {
  store: Store;
  /** Removes everything the store wrote and closes it. */
  cleanup(): Promise<void>;
}

/**
 * Makes a store with the given key prefix. Two calls must share one backend (the same Redis
 * server), so prefix isolation is tested for real where it matters.
 */
export type MakeStore = (prefix: string) => Promise<StoreUnderTest>;

/** Glob characters in the prefix prove that scan() matches it literally. */
function randomPrefix(label: string): string {
  return `test:[${label}]*?:${randomBytes(6).toString('hex')}:`;
}

/** What every Store implementation must do. Run by memory-store.test.ts and redis-store.test.ts. */
export function storeContract(name: string, make: MakeStore) {
  describe(`${name} (Store contract)`, () => {
    let subject: StoreUnderTest;
    let store: Store;

    beforeAll(async () => {
      subject = await make(randomPrefix('contract'));
      store = subject.store;
    });
    afterAll(() => subject?.cleanup());

    it('reads back what it wrote, overwrites, and answers null for unknown keys', async () => {
      await store.set('plain', 'one', 60);
      expect(await store.get('plain')).toBe('one');
      await store.set('plain', 'two', 60);
      expect(await store.get('plain')).toBe('two');
      expect(await store.get('never-written')).toBeNull();
      await expect(store.ping()).resolves.toBeUndefined();
    });

    it('replaceIfUnchanged writes only over exactly the value expected, and one of concurrent callers wins', async () => {
      await store.set('cas', 'read', 60);
      expect(await store.replaceIfUnchanged('cas', 'read', 'mine', 90)).toBe(true);
      expect(await store.get('cas')).toBe('mine');
      expect(await store.ttl('cas')).toBeGreaterThanOrEqual(89);
      // Someone wrote since it was read: the write-back changes nothing.
      expect(await store.replaceIfUnchanged('cas', 'read', 'stale', 90)).toBe(false);
      expect(await store.get('cas')).toBe('mine');
      expect(await store.replaceIfUnchanged('cas-missing', 'read', 'x', 60)).toBe(false);
      expect(await store.get('cas-missing')).toBeNull();
      const results = await Promise.all(['a', 'b', 'c'].map((tag) => store.replaceIfUnchanged('cas', 'mine', tag, 60)));
      expect(results.filter(Boolean)).toHaveLength(1);
      await expect(store.replaceIfUnchanged('cas', 'x', 'y', 0)).rejects.toThrow(RangeError);
    });

    it('reports the seconds left, or null for a missing key', async () => {
      await store.set('ttl', 'x', 60);
      const ttl = await store.ttl('ttl');
      expect(ttl).toBeGreaterThanOrEqual(59);
      expect(ttl).toBeLessThanOrEqual(60);
      expect(await store.ttl('no-such-key')).toBeNull();
    });

    it('increments by a given amount, keeping the TTL of the increment that created the key', async () => {
      expect(await store.incr('by:count', 60, 5)).toBe(5);
      expect(await store.incr('by:count', 600, 3)).toBe(8);
      expect(await store.incr('by:count', 600)).toBe(9);
      expect(await store.ttl('by:count')).toBeLessThanOrEqual(60);
    });

    it('refuses a TTL that is not a positive number', async () => {
      await expect(store.set('bad-ttl', 'x', 0)).rejects.toThrow(RangeError);
      await expect(store.incr('bad-ttl', -1)).rejects.toThrow(RangeError);
      await expect(store.sadd('bad-ttl', 'x', Number.NaN)).rejects.toThrow(RangeError);
      expect(await store.get('bad-ttl')).toBeNull();
    });

    it('forgets every kind of value when its TTL passes, and an incr does not extend it', async () => {
      await store.set('exp:set', 'v', 1);
      expect(await store.setIfAbsent('exp:once', 'v', 1)).toBe(true);
      expect(await store.incr('exp:count', 1)).toBe(1);
      expect(await store.incr('exp:count', 600)).toBe(2);
      expect(await store.ttl('exp:count')).toBeLessThanOrEqual(1);
      await store.sadd('exp:members', 'm', 1);
      expect(await store.scan('exp:')).toHaveLength(4);

      await sleep(1_200);

      expect(await store.get('exp:set')).toBeNull();
      expect(await store.ttl('exp:set')).toBeNull();
      expect(await store.smembers('exp:members')).toEqual([]);
      expect(await store.scan('exp:')).toEqual([]);
      expect(await store.setIfAbsent('exp:once', 'again', 60)).toBe(true);
      expect(await store.incr('exp:count', 60)).toBe(1);
    });

    it('setIfAbsent writes only when the key does not exist', async () => {
      expect(await store.setIfAbsent('once', 'first', 60)).toBe(true);
      expect(await store.setIfAbsent('once', 'second', 60)).toBe(false);
      expect(await store.get('once')).toBe('first');
      await store.del('once');
      expect(await store.setIfAbsent('once', 'third', 60)).toBe(true);
      expect(await store.get('once')).toBe('third');
    });

    it('getDel hands the value to exactly one of 20 concurrent callers', async () => {
      await store.set('single-use', 'code', 60);
      const results = await Promise.all(Array.from({ length: 20 }, () => store.getDel('single-use')));
      expect(results.filter((result) => result === 'code')).toHaveLength(1);
      expect(results.filter((result) => result === null)).toHaveLength(19);
      expect(await store.get('single-use')).toBeNull();
      expect(await store.getDel('single-use')).toBeNull();
    });

    it('del removes several keys at once and ignores missing ones', async () => {
      await store.set('del:a', '1', 60);
      await store.set('del:b', '2', 60);
      await store.sadd('del:c', 'm', 60);
      await store.set('del:keep', '3', 60);
      await store.del('del:a', 'del:b', 'del:c', 'del:missing');
      await store.del();
      expect(await store.get('del:a')).toBeNull();
      expect(await store.get('del:b')).toBeNull();
      expect(await store.smembers('del:c')).toEqual([]);
      expect(await store.get('del:keep')).toBe('3');
    });

    it('incr counts atomically under 50 concurrent callers', async () => {
      const results = await Promise.all(Array.from({ length: 50 }, () => store.incr('counter', 60)));
      expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, index) => index + 1));
      expect(await store.get('counter')).toBe('50');
      expect(await store.incr('counter', 60)).toBe(51);
    });

    it('keeps a set with add, list and remove; an emptied set disappears', async () => {
      await store.sadd('set', 'a', 60);
      await store.sadd('set', 'b', 60);
      await store.sadd('set', 'a', 60);
      expect((await store.smembers('set')).sort()).toEqual(['a', 'b']);
      await store.srem('set', 'a');
      await store.srem('set', 'not-a-member');
      expect(await store.smembers('set')).toEqual(['b']);
      await store.srem('set', 'b');
      expect(await store.smembers('set')).toEqual([]);
      expect(await store.ttl('set')).toBeNull();
      expect(await store.smembers('no-such-set')).toEqual([]);
      await store.srem('no-such-set', 'x');
    });

    it('sadd extends a set\'s TTL to the longest member and never shortens it', async () => {
      await store.sadd('grow', 'short', 10);
      expect(await store.ttl('grow')).toBeLessThanOrEqual(10);
      await store.sadd('grow', 'long', 100);
      expect(await store.ttl('grow')).toBeGreaterThanOrEqual(99);
      await store.sadd('grow', 'shorter', 5);
      expect(await store.ttl('grow')).toBeGreaterThanOrEqual(99);
    });

    it('setIndexed writes the value and adds its key to each set, with sadd\'s TTL rule', async () => {
      await store.sadd('idx:b', 'other', 100);
      // It answers the largest set's size after the write.
      expect(await store.setIndexed('idx:value', 'v1', 30, ['idx:a', 'idx:b'])).toBe(2);
      expect(await store.get('idx:value')).toBe('v1');
      expect(await store.ttl('idx:value')).toBeLessThanOrEqual(30);
      expect(await store.ttl('idx:value')).toBeGreaterThanOrEqual(29);
      expect(await store.smembers('idx:a')).toEqual(['idx:value']);
      expect((await store.smembers('idx:b')).sort()).toEqual(['idx:value', 'other']);
      // A new set takes the value's TTL; an existing longer-lived one is never shortened.
      expect(await store.ttl('idx:a')).toBeLessThanOrEqual(30);
      expect(await store.ttl('idx:b')).toBeGreaterThanOrEqual(99);
      expect(await store.setIndexed('idx:value', 'v2', 200, ['idx:a'])).toBe(1);
      expect(await store.get('idx:value')).toBe('v2');
      expect(await store.ttl('idx:a')).toBeGreaterThanOrEqual(199);
      expect(await store.smembers('idx:a')).toEqual(['idx:value']);
      // Without sets it is a plain set(); a bad TTL writes nothing.
      expect(await store.setIndexed('idx:plain', 'p', 60, [])).toBe(0);
      expect(await store.get('idx:plain')).toBe('p');
      await expect(store.setIndexed('idx:bad', 'x', 0, ['idx:bad-set'])).rejects.toThrow(RangeError);
      expect(await store.get('idx:bad')).toBeNull();
      expect(await store.smembers('idx:bad-set')).toEqual([]);
    });

    it('getWithReference reads a record, its companions and the record its field points to', async () => {
      await store.set('ref:token', JSON.stringify({ grantId: 'g1', other: 1 }), 60);
      await store.set('ref:marker', '123', 60);
      await store.set('ref:grant:g1', 'grant-one', 60);
      await store.set('ref:grant:g2', 'grant-two', 60);
      const ref = { field: 'grantId', prefix: 'ref:grant:' };
      expect(await store.getWithReference('ref:token', ['ref:marker', 'ref:absent'], ref)).toEqual({
        values: [JSON.stringify({ grantId: 'g1', other: 1 }), '123', null],
        referenced: 'grant-one',
      });
      // No record, a record without the field, a field that is not a string, or not JSON at all:
      // nothing is followed.
      expect(await store.getWithReference('ref:none', [], ref)).toEqual({ values: [null], referenced: null });
      await store.set('ref:nofield', JSON.stringify({ other: 'g2' }), 60);
      expect((await store.getWithReference('ref:nofield', [], ref)).referenced).toBeNull();
      await store.set('ref:number', JSON.stringify({ grantId: 2 }), 60);
      expect((await store.getWithReference('ref:number', [], ref)).referenced).toBeNull();
      await store.set('ref:text', 'not json', 60);
      expect(await store.getWithReference('ref:text', ['ref:marker'], ref)).toEqual({ values: ['not json', '123'], referenced: null });
      // A reference to a record that does not exist reads as null.
      await store.set('ref:dangling', JSON.stringify({ grantId: 'gone' }), 60);
      expect((await store.getWithReference('ref:dangling', [], ref)).referenced).toBeNull();
    });

    it('claimAndWrite makes its writes only when it claims, and exactly one of concurrent callers claims', async () => {
      const claim = { key: 'claim:marker', value: 'first', ttlSeconds: 60 };
      const writes = (tag: string) => [
        { key: `claim:${tag}:a`, value: 'A', ttlSeconds: 30, sets: ['claim:set'] },
        { key: `claim:${tag}:b`, value: 'B', ttlSeconds: 90, sets: ['claim:set', 'claim:other'] },
      ];
      const results = await Promise.all(['x', 'y', 'z'].map((tag) => store.claimAndWrite({ ...claim, value: tag }, writes(tag))));
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = ['x', 'y', 'z'][results.indexOf(true)]!;
      expect(await store.get('claim:marker')).toBe(winner);
      expect(await store.ttl('claim:marker')).toBeGreaterThanOrEqual(59);
      for (const tag of ['x', 'y', 'z']) {
        expect(await store.get(`claim:${tag}:a`)).toBe(tag === winner ? 'A' : null);
        expect(await store.get(`claim:${tag}:b`)).toBe(tag === winner ? 'B' : null);
      }
      expect((await store.smembers('claim:set')).sort()).toEqual([`claim:${winner}:a`, `claim:${winner}:b`]);
      expect(await store.smembers('claim:other')).toEqual([`claim:${winner}:b`]);
      // Index sets follow setIndexed's TTL rule: the longest write's TTL.
      expect(await store.ttl('claim:set')).toBeGreaterThanOrEqual(89);
      expect(await store.ttl(`claim:${winner}:a`)).toBeLessThanOrEqual(30);

      // Without a claim the writes always happen.
      expect(await store.claimAndWrite(null, [{ key: 'claim:free', value: 'F', ttlSeconds: 60, sets: [] }])).toBe(true);
      expect(await store.get('claim:free')).toBe('F');
      // A bad TTL writes nothing at all.
      await expect(store.claimAndWrite({ key: 'claim:bad', value: 'v', ttlSeconds: 60 }, [{ key: 'claim:bad-write', value: 'v', ttlSeconds: 0, sets: [] }])).rejects.toThrow(RangeError);
      expect(await store.get('claim:bad')).toBeNull();
      expect(await store.get('claim:bad-write')).toBeNull();
    });

    it('claimAndWrite with a required key claims and writes only while that key exists, and otherwise answers gone and writes nothing', async () => {
      const writes = (tag: string) => [{ key: `req:${tag}:token`, value: tag, ttlSeconds: 60, sets: [`req:${tag}:set`] }];
      await store.set('req:grant', '{}', 60);
      expect(await store.claimAndWrite({ key: 'req:marker:1', value: 'a', ttlSeconds: 60 }, writes('live'), 'req:grant')).toBe(true);
      expect(await store.get('req:live:token')).toBe('live');
      // A lost claim is still a lost claim while the key exists.
      expect(await store.claimAndWrite({ key: 'req:marker:1', value: 'b', ttlSeconds: 60 }, writes('lost'), 'req:grant')).toBe(false);
      expect(await store.get('req:lost:token')).toBeNull();

      // Once the key is gone, neither the claim nor the writes happen, with or without a claim.
      await store.del('req:grant');
      expect(await store.claimAndWrite({ key: 'req:marker:2', value: 'c', ttlSeconds: 60 }, writes('gone'), 'req:grant')).toBe('gone');
      expect(await store.claimAndWrite(null, writes('unclaimed'), 'req:grant')).toBe('gone');
      for (const key of ['req:marker:2', 'req:gone:token', 'req:unclaimed:token']) expect(await store.get(key)).toBeNull();
      expect(await store.smembers('req:gone:set')).toEqual([]);
      expect(await store.smembers('req:unclaimed:set')).toEqual([]);
      // Gone wins over an already used marker: nothing to revoke again.
      expect(await store.claimAndWrite({ key: 'req:marker:1', value: 'd', ttlSeconds: 60 }, [], 'req:grant')).toBe('gone');
      // No required key: as before.
      expect(await store.claimAndWrite({ key: 'req:marker:3', value: 'e', ttlSeconds: 60 }, writes('free'), undefined)).toBe(true);
      expect(await store.get('req:free:token')).toBe('free');
    });

    it('scan finds live keys by literal prefix, without the store prefix, with TTLs', async () => {
      await store.set('scan:a:1', 'x', 60);
      await store.set('scan:a:2', 'x', 120);
      await store.sadd('scan:a:set', 'm', 30);
      await store.set('scan:ab', 'x', 60);
      await store.set('scan:*', 'x', 60);
      await store.set('scan:[a]', 'x', 60);
      await store.set('scan:?', 'x', 60);

      const found = (await store.scan('scan:a:')).sort((x, y) => x.key.localeCompare(y.key));
      expect(found.map(({ key }) => key)).toEqual(['scan:a:1', 'scan:a:2', 'scan:a:set']);
      expect(found[0]!.ttl).toBeGreaterThanOrEqual(59);
      expect(found[1]!.ttl).toBeGreaterThanOrEqual(119);
      expect(found[2]!.ttl).toBeLessThanOrEqual(30);

      expect((await store.scan('scan:*')).map(({ key }) => key)).toEqual(['scan:*']);
      expect((await store.scan('scan:[')).map(({ key }) => key)).toEqual(['scan:[a]']);
      expect((await store.scan('scan:?')).map(({ key }) => key)).toEqual(['scan:?']);
      expect(await store.scan('nothing-here:')).toEqual([]);
    });

    it('does not see or touch keys of a store with another prefix on the same backend', async () => {
      const other = await make(randomPrefix('other'));
      try {
        await store.set('shared-name', 'mine', 60);
        await other.store.set('shared-name', 'theirs', 60);
        await other.store.sadd('their-set', 'x', 60);
        expect(await store.get('shared-name')).toBe('mine');
        expect(await other.store.get('shared-name')).toBe('theirs');
        expect(await store.smembers('their-set')).toEqual([]);
        expect((await store.scan('')).map(({ key }) => key)).not.toContain('their-set');
        expect((await other.store.scan('')).map(({ key }) => key).sort()).toEqual(['shared-name', 'their-set']);

        await store.del('shared-name', 'their-set');
        expect(await other.store.get('shared-name')).toBe('theirs');
        expect(await other.store.smembers('their-set')).toEqual(['x']);
      } finally {
        await other.cleanup();
      }
    });
  });
}
