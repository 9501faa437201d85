/**
 * How a failed Redis command is thrown from the store (redis-store.ts): an outage as
 * StoreUnavailableError (503), any other reply as the bug it is, neither with its arguments.
 */
import { ReplyError } from 'ioredis';
import { StoreUnavailableError } from './store.ts';

/**
 * Error replies that mean the server cannot serve now, not that the command was wrong: a replica
 * after a failover (READONLY), out of memory (OOM), loading its data set (LOADING), stuck in a
 * script (BUSY), a replica without its primary (MASTERDOWN), a cluster resharding or down
 * (TRYAGAIN, CLUSTERDOWN), writes refused after a failed save (MISCONF: a full disk, say) or for
 * want of replicas (NOREPLICAS). Each passes once Redis recovers; the client may retry (503).
 */
const outageReplies = new Set(['READONLY', 'OOM', 'LOADING', 'BUSY', 'MASTERDOWN', 'TRYAGAIN', 'CLUSTERDOWN', 'MISCONF', 'NOREPLICAS']);

/**
 * The error as it may be logged: its name and message, without the `command` ioredis attaches to
 * a reply error, whose arguments are keys and values holding bearer secrets (tokens, session ids).
 */
function withoutCommand(error: Error): Error {
  const bare = new Error(error.message);
  bare.name = error.name;
  return bare;
}

/** The reply's code is its first word (`-READONLY You can't write...`). */
function isOutageReply(error: Error): boolean {
  return outageReplies.has(error.message.split(' ', 1)[0]!);
}

/**
 * A failed command's error as the store throws it: connection failures and the outage replies as
 * StoreUnavailableError, other replies (WRONGTYPE, a script error) as themselves, both without
 * the command.
 */
export function asStoreError(error: unknown): Error {
  if (error instanceof ReplyError && !isOutageReply(error as Error)) return withoutCommand(error as Error);
  return new StoreUnavailableError(`Redis is unavailable: ${(error as Error).message}`, { cause: withoutCommand(error as Error) });
}
