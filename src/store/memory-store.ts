import { toTtlSeconds, type ClaimSpec, type IndexedWrite, type Store } from './store.ts';

/** `value[field]` when value is a JSON object and that field a string, as the Redis script reads it. */
function referenceOf(value: string | null, field: string): string | undefined {
  if (value === null) return undefined;
  try {
    const decoded: unknown = JSON.parse(value);
    const target = decoded && typeof decoded === 'object' ? (decoded as Record<string, unknown>)[field] : undefined;
    return typeof target === 'string' ? target : undefined;
  } catch {
    return undefined;
  }
}

interface Entry {
  value: string | Set<string>;
  expiresAt: number;
}

export interface MemoryStoreOptions {
  /** Milliseconds since the epoch; tests inject a movable clock. */
  now?: () => number;
  /** Added to every key, as RedisStore does, so both behave alike. */
  prefix?: string;
}

/**
 * The embedded store: a Map with TTLs, for development and tests without Redis. Single process
 * only; every operation is synchronous inside, so get-and-delete and increments are atomic.
 */
export class MemoryStore implements Store {
  readonly kind = 'memory' as const;
  readonly #entries = new Map<string, Entry>();
  readonly #now: () => number;
  readonly #prefix: string;
  readonly #sweeper: NodeJS.Timeout;

  constructor(options: MemoryStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#prefix = options.prefix ?? '';
    this.#sweeper = setInterval(() => this.#sweep(), 60_000);
    this.#sweeper.unref();
  }

  #live(key: string): Entry | undefined {
    const entry = this.#entries.get(this.#prefix + key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.#now()) {
      this.#entries.delete(this.#prefix + key);
      return undefined;
    }
    return entry;
  }

  #put(key: string, entry: Entry) {
    this.#entries.set(this.#prefix + key, entry);
  }

  #string(key: string): string | null {
    const value = this.#live(key)?.value;
    return typeof value === 'string' ? value : null;
  }

  #expiry(ttlSeconds: number): number {
    return this.#now() + toTtlSeconds(ttlSeconds) * 1000;
  }

  async get(key: string) {
    return this.#string(key);
  }

  async set(key: string, value: string, ttlSeconds: number) {
    this.#put(key, { value, expiresAt: this.#expiry(ttlSeconds) });
  }

  async setIfAbsent(key: string, value: string, ttlSeconds: number) {
    const expiresAt = this.#expiry(ttlSeconds);
    if (this.#live(key)) return false;
    this.#put(key, { value, expiresAt });
    return true;
  }

  async replaceIfUnchanged(key: string, expected: string, value: string, ttlSeconds: number) {
    const expiresAt = this.#expiry(ttlSeconds);
    if (this.#string(key) !== expected) return false;
    this.#put(key, { value, expiresAt });
    return true;
  }

  async getDel(key: string) {
    const value = this.#string(key);
    this.#entries.delete(this.#prefix + key);
    return value;
  }

  async del(...keys: string[]) {
    for (const key of keys) this.#entries.delete(this.#prefix + key);
  }

  async incr(key: string, ttlSeconds: number, by = 1) {
    const expiresAt = this.#expiry(ttlSeconds);
    const entry = this.#live(key);
    if (entry && typeof entry.value !== 'string') throw new TypeError(`${key} holds a set, not a counter`);
    const next = (entry ? Number(entry.value) : 0) + by;
    this.#put(key, { value: String(next), expiresAt: entry?.expiresAt ?? expiresAt });
    return next;
  }

  async ttl(key: string) {
    const entry = this.#live(key);
    return entry ? Math.max(0, Math.ceil((entry.expiresAt - this.#now()) / 1000)) : null;
  }

  async sadd(key: string, member: string, ttlSeconds: number) {
    this.#addMember(key, member, this.#expiry(ttlSeconds));
  }

  /** Adds the member; answers the set's size after. */
  #addMember(key: string, member: string, expiresAt: number): number {
    const entry = this.#live(key);
    const set = entry && entry.value instanceof Set ? entry.value : new Set<string>();
    set.add(member);
    this.#put(key, { value: set, expiresAt: Math.max(entry?.expiresAt ?? 0, expiresAt) });
    return set.size;
  }

  async setIndexed(key: string, value: string, ttlSeconds: number, sets: string[]) {
    // Synchronous inside, so no other call sees the sets without the value.
    const expiresAt = this.#expiry(ttlSeconds);
    let largest = 0;
    for (const set of sets) largest = Math.max(largest, this.#addMember(set, key, expiresAt));
    this.#put(key, { value, expiresAt });
    return largest;
  }

  claimAndWrite(claim: ClaimSpec | null, writes: IndexedWrite[], requiredKey: string | undefined): Promise<boolean | 'gone'>;
  claimAndWrite(claim: ClaimSpec | null, writes: IndexedWrite[]): Promise<boolean>;
  async claimAndWrite(claim: ClaimSpec | null, writes: IndexedWrite[], requiredKey?: string): Promise<boolean | 'gone'> {
    // Every TTL is checked before anything is written, as the Redis script's caller does.
    const claimExpiry = claim && this.#expiry(claim.ttlSeconds);
    const expiries = writes.map((write) => this.#expiry(write.ttlSeconds));
    if (requiredKey !== undefined && !this.#live(requiredKey)) return 'gone';
    if (claim) {
      if (this.#live(claim.key)) return false;
      this.#put(claim.key, { value: claim.value, expiresAt: claimExpiry! });
    }
    writes.forEach((write, i) => {
      for (const set of write.sets) this.#addMember(set, write.key, expiries[i]!);
      this.#put(write.key, { value: write.value, expiresAt: expiries[i]! });
    });
    return true;
  }

  async getWithReference(key: string, alsoKeys: string[], ref: { field: string; prefix: string }) {
    const values = [key, ...alsoKeys].map((k) => this.#string(k));
    const target = referenceOf(values[0] ?? null, ref.field);
    return { values, referenced: target === undefined ? null : this.#string(ref.prefix + target) };
  }

  async smembers(key: string) {
    const value = this.#live(key)?.value;
    return value instanceof Set ? [...value] : [];
  }

  async srem(key: string, member: string) {
    const value = this.#live(key)?.value;
    if (value instanceof Set) {
      value.delete(member);
      if (value.size === 0) this.#entries.delete(this.#prefix + key);
    }
  }

  async scan(prefix: string) {
    const found: { key: string; ttl: number }[] = [];
    for (const fullKey of [...this.#entries.keys()]) {
      if (!fullKey.startsWith(this.#prefix + prefix)) continue;
      const key = fullKey.slice(this.#prefix.length);
      const ttl = await this.ttl(key);
      if (ttl !== null) found.push({ key, ttl });
    }
    return found;
  }

  async ping() {}

  async close() {
    clearInterval(this.#sweeper);
    this.#entries.clear();
  }

  #sweep() {
    const now = this.#now();
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key);
  }
}
