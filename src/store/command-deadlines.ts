import type { Command, Redis } from 'ioredis';

/** ioredis's queue of commands written and waiting for their answers, oldest first. */
interface AnswerQueue {
  readonly length: number;
  peekFront(): { command: Command } | undefined;
  toArray(): { command: Command }[];
}

/**
 * Deadlines for a Redis client's commands, kept by one timer instead of ioredis's
 * `commandTimeout`, which sets a timer for every command and clears it on every answer: in CPU
 * profiles of the token endpoint that was about a fifth of ioredis's cost per command.
 *
 * - Connected: Redis answers in order, so the oldest unanswered command speaks for every other.
 *   When the same command has been the oldest for `timeoutMs`, nothing was answered in that time,
 *   and every command waiting fails with ioredis's own "Command timed out". Commands written
 *   later, while it still stands first, fail at the next sweep: the connection is known to be
 *   stalled. As with `commandTimeout`, the connection itself is kept: TCP delivers late answers
 *   in order, and a connection that does close is reopened by ioredis.
 * - Not connected yet: a command waits in ioredis's offline queue and gets a timer of its own
 *   (`watch`), as every command did before.
 *
 * A sweep runs every `timeoutMs / 8`, so a command fails between `timeoutMs` and 1⅛ of it.
 */
export class CommandDeadlines {
  readonly #client: Redis;
  readonly #timeoutMs: number;
  readonly #timer: NodeJS.Timeout;
  /** The oldest unanswered command at the last sweep, and when it was first seen so. */
  #oldest: { command: Command } | undefined;
  #oldestSince = 0;

  constructor(client: Redis, timeoutMs: number) {
    this.#client = client;
    this.#timeoutMs = timeoutMs;
    this.#timer = setInterval(() => this.sweep(), Math.max(1, Math.floor(timeoutMs / 8)));
    this.#timer.unref();
  }

  /** Called for every command as it is issued. */
  watch(command: Command): void {
    if (this.#client.status !== 'ready') command.setTimeout(this.#timeoutMs);
  }

  sweep(now = performance.now()): void {
    const queue = (this.#client as unknown as { commandQueue: AnswerQueue }).commandQueue;
    const front = queue.peekFront();
    if (front !== this.#oldest) {
      this.#oldest = front;
      this.#oldestSince = now;
      return;
    }
    if (front === undefined || now - this.#oldestSince < this.#timeoutMs) return;
    for (const { command } of queue.toArray()) {
      if (!command.isSettled) command.reject(new Error('Command timed out'));
    }
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
