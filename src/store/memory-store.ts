import { toTtlSeconds, type Store } from './store.ts';

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

  async getDel(key: string) {
    const value = this.#string(key);
    this.#entries.delete(this.#prefix + key);
    return value;
  }

  async del(...keys: string[]) {
    for (const key of keys) this.#entries.delete(this.#prefix + key);
  }

  async incr(key: string, ttlSeconds: number) {
    const expiresAt = this.#expiry(ttlSeconds);
    const entry = this.#live(key);
    if (entry && typeof entry.value !== 'string') throw new TypeError(`${key} holds a set, not a counter`);
    const next = (entry ? Number(entry.value) : 0) + 1;
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

  #addMember(key: string, member: string, expiresAt: number) {
    const entry = this.#live(key);
    const set = entry && entry.value instanceof Set ? entry.value : new Set<string>();
    set.add(member);
    this.#put(key, { value: set, expiresAt: Math.max(entry?.expiresAt ?? 0, expiresAt) });
  }

  async setIndexed(key: string, value: string, ttlSeconds: number, sets: string[]) {
    // Synchronous inside, so no other call sees the sets without the value.
    const expiresAt = this.#expiry(ttlSeconds);
    for (const set of sets) this.#addMember(set, key, expiresAt);
    this.#put(key, { value, expiresAt });
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
