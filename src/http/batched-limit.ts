import type { Store } from '../store/store.ts';

export interface BatchedLimitOptions {
  /** Hits allowed per key and window, across every instance sharing the store. */
  points: number;
  /** Window length in seconds; windows are aligned on the epoch, so instances agree on them. */
  duration: number;
  /** Key prefix in the store. */
  prefix: string;
  /** How long hits are counted locally before they are added to the shared count (ms). */
  syncMs?: number;
  now?: () => number;
}

export type LimitAnswer = { allowed: true } | { allowed: false; retryAfterSeconds: number };

interface Window {
  /** Which window (epoch-aligned index) these counts belong to. */
  index: number;
  /** The shared count as the store last answered it (every instance's hits). */
  shared: number;
  /** Hits admitted here and not yet added to the shared count. */
  pending: number;
  /** Hits admitted here whose addition to the shared count is under way (not yet in `shared`). */
  sending: number;
}

/**
 * A fixed-window budget per key, shared by every instance through the store, that costs the
 * request no round trip: hits are counted in this process and added to the store's count in one
 * increment per key every `syncMs`, which answers the total of all instances. A hit is refused
 * when the last known total plus this process's unsent hits reaches the budget.
 *
 * For abuse budgets on endpoints whose requests carry unguessable secrets (the OAuth back
 * channel): the budget can be overrun by at most what other instances admit in one sync interval,
 * and in one process it is exact. Budgets that stop guessing (sign-in, reset) stay on
 * src/http/rate-limit.ts, which asks the store on every call.
 *
 * When the store cannot be reached, hits are decided by a direct increment that surfaces the
 * store's error (the caller fails closed), until one succeeds again.
 */
export class BatchedWindowLimiter {
  readonly #store: Store;
  readonly #options: Required<Omit<BatchedLimitOptions, 'now'>> & { now: () => number };
  readonly #windows = new Map<string, Window>();
  #timer: NodeJS.Timeout | undefined;
  #healthy = true;

  constructor(store: Store, options: BatchedLimitOptions) {
    this.#store = store;
    this.#options = { syncMs: 100, now: Date.now, ...options };
  }

  /** Counts one hit for `key`; answers at once unless the store was found unreachable. */
  hit(key: string): LimitAnswer | Promise<LimitAnswer> {
    const { points, duration, now } = this.#options;
    const time = now();
    const index = Math.floor(time / 1000 / duration);
    let window = this.#windows.get(key);
    if (!window || window.index !== index) {
      window = { index, shared: 0, pending: 0, sending: 0 };
      this.#windows.set(key, window);
    }
    if (window.shared + window.sending + window.pending >= points) {
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((index + 1) * duration - time / 1000)) };
    }
    window.pending += 1;
    if (!this.#healthy) return this.#syncNow(key, window);
    this.#schedule();
    return { allowed: true };
  }

  /** Sends every pending count now (tests; shutdown). */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await Promise.allSettled([...this.#windows].map(([key, window]) => this.#send(key, window)));
  }

  #schedule() {
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, this.#options.syncMs).unref();
  }

  async #syncNow(key: string, window: Window): Promise<LimitAnswer> {
    try {
      await this.#send(key, window);
    } catch (error) {
      // Not admitted after all: the hit is not counted, and the caller answers 503.
      window.pending = Math.max(0, window.pending - 1);
      throw error;
    }
    return { allowed: true };
  }

  async #send(key: string, window: Window) {
    const count = window.pending;
    if (count === 0) return;
    // Counted as sending until the store's answer includes them: a hit meanwhile sees them too.
    window.pending = 0;
    window.sending += count;
    const { duration } = this.#options;
    try {
      // The window's index is part of the key, so a count never leaks into the next window.
      const shared = await this.#store.incr(`${this.#options.prefix}${key}:${window.index}`, duration, count);
      window.shared = Math.max(window.shared, shared);
      this.#healthy = true;
    } catch (error) {
      window.pending += count;
      this.#healthy = false;
      throw error;
    } finally {
      window.sending -= count;
    }
    // Windows that ended are forgotten once their counts are sent.
    const current = Math.floor(this.#options.now() / 1000 / duration);
    for (const [other, w] of this.#windows) if (w.index < current && w.pending === 0 && w.sending === 0) this.#windows.delete(other);
  }
}
