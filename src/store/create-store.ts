import { MemoryStore } from './memory-store.ts';
import { RedisStore, type ConnectionLogger } from './redis-store.ts';
import type { Store } from './store.ts';

export interface CreateStoreOptions {
  /** Redis when set; otherwise the in-process store (single instance only). */
  redisUrl?: string | undefined;
  /** Added to every key by both implementations. */
  prefix: string;
  /** Hears why Redis is unavailable (redis-store.ts); the memory store has no connection. */
  logger?: ConnectionLogger;
  /** The memory store's clock (tests move it). Redis keeps its own time. */
  now?: () => number;
}

export function createStore(options: CreateStoreOptions): Store {
  if (options.redisUrl) return new RedisStore({ url: options.redisUrl, prefix: options.prefix, ...(options.logger ? { logger: options.logger } : {}) });
  return new MemoryStore({ prefix: options.prefix, ...(options.now ? { now: options.now } : {}) });
}
