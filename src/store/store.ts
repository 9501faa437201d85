/**
 * The short-lived state of Nyckel: login sessions, email codes, counters, remembered devices and
 * every oidc-provider model. Values are strings (callers JSON-encode); every write takes a TTL in
 * seconds so nothing lives forever. Redis serves it in production, an in-process map in
 * development; both pass `test/store/store.contract.ts`.
 *
 * Keys are given without the configured prefix; implementations add it.
 */
export interface Store {
  readonly kind: 'redis' | 'memory';
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
  /** Writes only when the key does not exist; true when this call wrote it. */
  setIfAbsent(key: string, value: string, ttlSeconds: number): Promise<boolean>;
  /**
   * Writes only when the key still holds exactly `expected` (compare-and-set); true when this call
   * wrote it. For a write-back of what was read a moment ago that must not undo a concurrent write.
   */
  replaceIfUnchanged(key: string, expected: string, value: string, ttlSeconds: number): Promise<boolean>;
  /** Reads and removes atomically: of many concurrent callers exactly one gets the value. */
  getDel(key: string): Promise<string | null>;
  del(...keys: string[]): Promise<void>;
  /** Atomic increment (by `by`, default 1); the TTL is set when the key is created and kept on later increments. */
  incr(key: string, ttlSeconds: number, by?: number): Promise<number>;
  /** Seconds left, or null when the key does not exist. */
  ttl(key: string): Promise<number | null>;
  /** Adds a member to a set and extends the set's TTL to at least ttlSeconds. */
  sadd(key: string, member: string, ttlSeconds: number): Promise<void>;
  smembers(key: string): Promise<string[]>;
  srem(key: string, member: string): Promise<void>;
  /**
   * set() plus sadd(set, key, ttlSeconds) on each index set, in one atomic step: no reader sees
   * the value without its index entries. For writes that must stay findable through an index
   * (an oidc token through its grant), at the cost of one round trip. Answers how many members
   * the largest of the sets holds now (0 without sets), so a caller can prune an index that grew.
   */
  setIndexed(key: string, value: string, ttlSeconds: number, sets: string[]): Promise<number>;
  /**
   * Claims `claim.key` (written only if absent) and, only when this call claimed it, makes every
   * write in `writes` as setIndexed would, all in one atomic step and one round trip. True when
   * claimed; with no claim the writes always happen. For a use-once marker and what its use pays
   * for (a consumed refresh token and the tokens that replace it): of two concurrent callers
   * exactly one claims, and the other's writes never happen.
   *
   * With `requiredKey`, the same step first checks that key still exists (the grant a consumed
   * token belongs to) and, when it is gone, neither claims nor writes and answers 'gone': a
   * revocation that deleted that key first can never be undone by a request in flight. (The
   * overloads in this order so a stand-in answering Promise<boolean> still fits.)
   */
  claimAndWrite(claim: ClaimSpec | null, writes: IndexedWrite[], requiredKey: string | undefined): Promise<boolean | 'gone'>;
  claimAndWrite(claim: ClaimSpec | null, writes: IndexedWrite[]): Promise<boolean>;
  /**
   * Reads `key` and `alsoKeys` and, when key's value is a JSON object whose `ref.field` is a
   * string, the key `ref.prefix + value[ref.field]` as well: a record, its companions and the
   * record it points to (an oidc token, its consumed marker and its grant), in one atomic step
   * and one round trip instead of two in sequence.
   */
  getWithReference(key: string, alsoKeys: string[], ref: { field: string; prefix: string }): Promise<{ values: (string | null)[]; referenced: string | null }>;
  /** Every live key starting with prefix, with its remaining TTL. For operators' views, not hot paths. */
  scan(prefix: string): Promise<{ key: string; ttl: number }[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The use-once marker claimAndWrite() writes only if absent. */
export interface ClaimSpec {
  key: string;
  value: string;
  ttlSeconds: number;
}

/** One setIndexed() call, as data. */
export interface IndexedWrite {
  key: string;
  value: string;
  ttlSeconds: number;
  sets: string[];
}

/** Thrown when the backing service cannot be reached: the HTTP layer answers 503. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}

/**
 * The TTL every implementation writes: whole seconds, rounded up. A TTL that is not a positive
 * number is a caller's bug (the value would be dead on arrival, and Redis rejects it), so it throws
 * instead of silently writing something that lives forever or not at all.
 */
export function toTtlSeconds(ttlSeconds: number): number {
  if (!Number.isFinite(ttlSeconds) || ttlSeconds <= 0) throw new RangeError(`TTL must be a positive number of seconds, got ${ttlSeconds}`);
  return Math.ceil(ttlSeconds);
}
