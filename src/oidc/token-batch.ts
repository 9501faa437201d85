import Provider, { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { isUnavailable } from '../http/error-handler.ts';
import type { IndexedWrite, Store } from '../store/store.ts';
import { temporarilyUnavailable } from './fail-closed.ts';

/**
 * The token endpoint's store traffic in as few round trips as its checks allow. oidc-provider
 * makes five sequential adapter calls per grant (find the code or refresh token, find its grant,
 * consume, save the refresh token, save the access token); each would be a round trip to Redis
 * and, on this server, a socket write and a read. Within one token request there are two:
 *
 * - The code or refresh token is read together with its grant (Store.getWithReference); the
 *   grant is handed to oidc-provider's Grant.find a moment later without reading it again.
 * - consume() and the token writes are collected and sent, once oidc-provider has built its
 *   answer, as one atomic Store.claimAndWrite: the consumed marker is claimed and, only if this
 *   request claimed it, the new tokens are written. The answer waits for it. A claim lost to a
 *   concurrent use of the same code or refresh token writes nothing, revokes the grant and turns
 *   the answer into invalid_grant, as an awaited consume() would have; a store failure turns it
 *   into 503 temporarily_unavailable. The same step requires the grant of the code or refresh
 *   token to still exist: a revocation that came between the read and the send (it deletes the
 *   grant first) leaves nothing written and turns the answer into invalid_grant. No token leaves
 *   before it and the consumption that paid for it are stored.
 *
 * Any other adapter call in the same request first sends what was collected, so reads always see
 * the request's own writes.
 */
export interface TokenBatch {
  /** Grants read together with the token naming them: grant id → stored payload (null: none). */
  readonly grants: Map<string, string | null>;
  /** The consume() of this request, waiting to be sent. */
  claim?: Claim;
  /** A claim that was sent and lost: the code or refresh token had been used already. */
  lostClaim?: Claim;
  /**
   * The Grant model key of the code or refresh token this request uses: every send requires it
   * to still exist, so a revocation (which deletes the grant first) that comes between this
   * request's read and its send leaves nothing written and no token answered.
   */
  grantKey?: string;
  /** A send found the grant gone: revoked while this request ran. */
  grantGone?: boolean;
  /** The claim of the send under way: known to have landed or not only once its answer came. */
  unsettled?: Claim;
  /** Token writes waiting to be sent. */
  readonly writes: IndexedWrite[];
  /** Sends what was collected so far; true unless a claim of this request was lost or its grant is gone. */
  flush(): Promise<boolean>;
}

interface Claim {
  key: string;
  value: string;
  ttlSeconds: number;
  /** What a request that used a code or refresh token a second time must do. */
  lost: () => Promise<void>;
  /** 'refresh token' or 'grant', for the error. */
  description: string;
}

const batches = new WeakMap<object, TokenBatch>();

/** The batch of the token request this call runs in, if any (oidc-provider's own request context). */
export function currentTokenBatch(): TokenBatch | undefined {
  const koa = Provider.ctx;
  return koa ? batches.get(koa) : undefined;
}

/** Sends what the batch collected before an adapter call that must see it. */
export async function flushPending(batch: TokenBatch | undefined): Promise<void> {
  if (batch && (batch.claim || batch.writes.length > 0)) await batch.flush();
}

const isTokenRequest = (koa: KoaContextWithOIDC) => koa.method === 'POST' && koa.path.endsWith('/token');

function openBatch(store: Store): TokenBatch {
  const batch: TokenBatch = {
    grants: new Map(),
    writes: [],
    async flush() {
      const { claim } = batch;
      const writes = batch.writes.splice(0);
      batch.claim = undefined;
      if (claim || writes.length > 0) {
        batch.unsettled = claim;
        const outcome = await store.claimAndWrite(claim ? { key: claim.key, value: claim.value, ttlSeconds: claim.ttlSeconds } : null, writes, batch.grantKey);
        batch.unsettled = undefined;
        if (outcome === 'gone') batch.grantGone = true;
        else if (!outcome) batch.lostClaim ??= claim;
      }
      return batch.lostClaim === undefined && !batch.grantGone;
    },
  };
  return batch;
}

/**
 * Koa middleware for oidc-provider (provider.use): opens a batch for each token request and, once
 * oidc-provider has built its answer, sends what was collected (nothing, when the answer is an
 * error) and holds the answer until it is stored, replacing the answer when the claim was lost,
 * the grant was revoked meanwhile or the store failed.
 */
export function settleTokenRequests(provider: Provider, store: Store) {
  return async (koa: KoaContextWithOIDC, next: () => Promise<void>) => {
    if (!isTokenRequest(koa)) return next();
    const batch = openBatch(store);
    batches.set(koa, batch);
    await next();
    if (koa.status >= 400) discardPending(batch);
    try {
      if (await batch.flush()) return;
      if (batch.grantGone) {
        // Revoked while this request ran: the revocation removes what the grant issued, nothing
        // was written here, and the answer carries no token.
        const error = new errors.InvalidGrant('grant revoked');
        provider.emit('grant.error', koa, error);
        return answer(koa, error);
      }
      // Used twice: the grant and everything issued under it are revoked, as for any replay.
      const claim = batch.lostClaim!;
      await claim.lost();
      const error = new errors.InvalidGrant(`${claim.description} already used`);
      provider.emit('grant.error', koa, error);
      answer(koa, error);
    } catch (error) {
      if (await landedAfterAll(store, batch, error)) return;
      answer(koa, failure(provider, koa, error));
    }
  };
}

/**
 * An error answer (oidc-provider's own, after a consume: the database failing the ID token's
 * claims, say) carries no token, so what the request collected is not sent: the code or refresh
 * token stays unused and nothing is stored for it. Sent, the client's retry, which a 503 invites,
 * would be a replay and revoke the grant. A claim sent earlier in the request, and lost, still
 * turns the answer into invalid_grant (flush).
 */
function discardPending(batch: TokenBatch): void {
  batch.claim = undefined;
  batch.writes.length = 0;
}

/**
 * A claim sent with its tokens whose answer did not come in time (the store's command deadline):
 * Redis may have run it all the same, the code or refresh token then used and the new tokens
 * stored. Answering 503 then would make the client's retry a replay, and the grant would be
 * revoked. The marker is read back on the same connection, so after the claim: holding this
 * request's own value, the claim and its writes (one atomic script) landed, and the answer built
 * stands. Otherwise, or if this read fails too, the outage is answered.
 */
async function landedAfterAll(store: Store, batch: TokenBatch, error: unknown): Promise<boolean> {
  const claim = batch.unsettled;
  if (!claim || !isUnavailable(error)) return false;
  return (await store.get(claim.key).catch(() => null)) === claim.value;
}

/** An outage is temporarily_unavailable (503, the client may retry); anything else a server_error, as oidc-provider answers it. */
function failure(provider: Provider, koa: KoaContextWithOIDC, error: unknown): Error {
  if (isUnavailable(error)) return temporarilyUnavailable(error);
  provider.emit('server_error', koa, error);
  return Object.assign(new Error('oops! something went wrong'), { statusCode: 500, error: 'server_error', error_description: 'oops! something went wrong' });
}

/** oidc-provider's own error answer on the token endpoint: status and `{error, error_description}`. */
function answer(koa: KoaContextWithOIDC, error: Error): void {
  const { statusCode, error: code, error_description } = error as Error & { statusCode: number; error: string; error_description?: string };
  koa.status = statusCode;
  koa.body = { error: code, ...(error_description !== undefined && { error_description }) };
}
