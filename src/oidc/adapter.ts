import { randomBytes } from 'node:crypto';
import { errors, type Adapter, type AdapterConstructor, type AdapterPayload } from 'oidc-provider';
import type { Store } from '../store/store.ts';
import { currentTokenBatch, flushPending } from './token-batch.ts';

/** Used when oidc-provider gives no expiresIn (e.g. registration tokens): nothing lives forever. */
export const MAX_TTL_SECONDS = 14 * 24 * 3600;

/** Models that carry a grantId and must die with their grant (oidc-provider's own list). */
const GRANTABLE = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'PreAuthorizedCode',
]);

/** Models oidc-provider calls consume() on; only their find() looks for the consumed marker. */
export const CONSUMABLE = new Set([
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'PushedAuthorizationRequest',
  'PreAuthorizedCode',
]);

export const oidcKeys = {
  model: (model: string, id: string) => `oidc:${model}:${id}`,
  /** `oidc:<Model>:<id>` → `oidc:consumed:<Model>:<id>`. */
  consumed: (modelKey: string) => `oidc:consumed:${modelKey.slice('oidc:'.length)}`,
  uid: (uid: string) => `oidc:uid:${uid}`,
  userCode: (userCode: string) => `oidc:usercode:${userCode}`,
  grant: (grantId: string) => `oidc:grant:${grantId}`,
  account: (accountId: string) => `account:${accountId}:oidc`,
};

function ttlFor(expiresIn: number | undefined): number {
  if (typeof expiresIn !== 'number' || !Number.isFinite(expiresIn)) return MAX_TTL_SECONDS;
  // oidc-provider may persist an already expiring session with 0 s left; keep it for a moment
  // rather than fail the request (its own exp check still rejects it).
  return Math.max(1, Math.ceil(expiresIn));
}

/**
 * The consumed marker's value: when, in seconds since the epoch (oidc-provider's `consumed`), and
 * a random tail that makes it this request's own: a token request whose claim was sent but whose
 * answer timed out reads the marker back to learn whether its claim is the one stored
 * (token-batch.ts).
 */
const consumedAt = () => `${Math.floor(Date.now() / 1000)}.${randomBytes(9).toString('base64url')}`;

export function parse(stored: string | null): AdapterPayload | undefined {
  return stored === null ? undefined : (JSON.parse(stored) as AdapterPayload);
}

/**
 * The adapter class oidc-provider instantiates once per model name, storing every model in the
 * Store (Redis in production) with the model's own lifetime as TTL.
 */
/**
 * `lifetimes` (seconds, per model) lets `consume` write its marker in one round trip with the
 * model's longest lifetime as TTL, instead of first reading the token's remaining TTL. The marker
 * may then outlive its token by at most that lifetime, which costs a few bytes, never safety.
 */
export function createOidcAdapter(store: Store, lifetimes: Partial<Record<string, number>> = {}): AdapterConstructor {
  return class StoreAdapter implements Adapter {
    readonly #model: string;

    constructor(model: string) {
      this.#model = model;
    }

    #key(id: string) {
      return oidcKeys.model(this.#model, id);
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number) {
      const key = this.#key(id);
      const ttl = ttlFor(expiresIn);
      const lookups: Promise<unknown>[] = [];
      if (this.#model === 'Session' && payload.uid) lookups.push(store.set(oidcKeys.uid(payload.uid), id, ttl));
      if (payload.userCode) lookups.push(store.set(oidcKeys.userCode(payload.userCode), id, ttl));
      // A code or token issued under a grant is indexed under its grant only; listAccountKeys
      // (account-keys.ts) finds it through the grant, which the account's index holds. One index entry per token
      // instead of two, on every code exchange and refresh. Sessions get their accountId at
      // login, after their first save: index on every upsert.
      const grantId = GRANTABLE.has(this.#model) ? payload.grantId : undefined;
      const sets = grantId ? [oidcKeys.grant(grantId)] : payload.accountId ? [oidcKeys.account(payload.accountId)] : [];
      // The payload and its index entry in one atomic write: a token always exists together with
      // the entry its grant revocation finds it by. The uid and user-code lookups go first in the
      // same pipeline; one left pointing at nothing is harmless.
      const batch = currentTokenBatch();
      if (this.#model === 'Grant') batch?.grants.delete(id);
      if (batch && lookups.length === 0) {
        // Sent with the request's consume, and the answer waits for it (src/oidc/token-batch.ts).
        batch.writes.push({ key, value: JSON.stringify(payload), ttlSeconds: ttl, sets });
        return;
      }
      await flushPending(batch);
      await Promise.all([...lookups, store.setIndexed(key, JSON.stringify(payload), ttl, sets)]);
    }

    async find(id: string) {
      const key = this.#key(id);
      const batch = currentTokenBatch();
      if (this.#model === 'Grant' && batch?.grants.has(id)) {
        // Read a moment ago together with the token that names it; used once.
        const stored = batch.grants.get(id)!;
        batch.grants.delete(id);
        return parse(stored);
      }
      await flushPending(batch);
      if (!CONSUMABLE.has(this.#model)) return parse(await store.get(key));
      let stored: string | null;
      let consumed: string | null;
      /** The grant the token names, read with it (token requests only). */
      let referenced: string | null | undefined;
      if (batch && GRANTABLE.has(this.#model)) {
        const read = await store.getWithReference(key, [oidcKeys.consumed(key)], { field: 'grantId', prefix: oidcKeys.model('Grant', '') });
        [stored = null, consumed = null] = read.values;
        referenced = read.referenced;
      } else {
        [stored, consumed] = await Promise.all([store.get(key), store.get(oidcKeys.consumed(key))]);
      }
      const payload = parse(stored);
      if (payload && consumed !== null) payload.consumed ??= Number.parseInt(consumed, 10);
      if (batch && payload?.grantId && referenced !== undefined) {
        batch.grants.set(payload.grantId, referenced);
        // The token this request uses: what it writes requires the grant to still exist.
        batch.grantKey = oidcKeys.model('Grant', payload.grantId);
      }
      return payload;
    }

    async findByUid(uid: string) {
      await flushPending(currentTokenBatch());
      const id = await store.get(oidcKeys.uid(uid));
      return id === null ? undefined : this.find(id);
    }

    async findByUserCode(userCode: string) {
      await flushPending(currentTokenBatch());
      const id = await store.get(oidcKeys.userCode(userCode));
      return id === null ? undefined : this.find(id);
    }

    /**
     * Marks a code or refresh token used by writing a separate marker key rather than rewriting
     * the payload: a read-modify-write racing destroy() or revokeByGrantId() could write a
     * revoked token back to life. setIfAbsent keeps the first consumption time.
     *
     * oidc-provider checks `consumed` when it finds the code, then consumes it: two requests with
     * the same code (or refresh token) at the same moment both pass that check. The marker's
     * set-if-absent decides: exactly one wins, the other is refused with invalid_grant and, as
     * for any replay (RFC 6749 section 4.1.2), the grant is revoked with everything it issued.
     */
    async consume(id: string) {
      const key = this.#key(id);
      const description = this.#model === 'RefreshToken' ? 'refresh token' : 'grant';
      const mark = (lifetime: number) => store.setIfAbsent(oidcKeys.consumed(key), consumedAt(), Math.max(1, lifetime));
      const batch = currentTokenBatch();
      const known = lifetimes[this.#model];
      if (batch && !batch.claim && known !== undefined) {
        // Sent with the tokens it pays for; the answer waits for the outcome (src/oidc/token-batch.ts).
        batch.claim = { key: oidcKeys.consumed(key), value: consumedAt(), ttlSeconds: Math.max(1, known), lost: () => this.#revokeReplayed(key), description };
        return;
      }
      await flushPending(batch);
      const lifetime = known ?? (await store.ttl(key));
      if (lifetime !== null && (await mark(lifetime))) return;
      await this.#revokeReplayed(key);
      throw new errors.InvalidGrant(`${description} already used`);
    }

    /**
     * A code or refresh token used twice: its grant and everything issued under it are revoked.
     * The grant goes first: a token request in flight under it then finds it gone when it sends
     * its claim and writes (src/oidc/token-batch.ts) and stores nothing this revocation misses.
     */
    async #revokeReplayed(key: string) {
      const grantId = parse(await store.get(key))?.grantId;
      if (!grantId) return;
      await store.del(oidcKeys.model('Grant', grantId));
      await this.revokeByGrantId(grantId);
    }

    async destroy(id: string) {
      const key = this.#key(id);
      const batch = currentTokenBatch();
      if (this.#model === 'Grant') batch?.grants.delete(id);
      await flushPending(batch);
      const payload = parse(await store.get(key));
      // Index entries would also be pruned when read; removing them now keeps the sets small.
      // Issued in one tick, the three travel in one pipeline and Redis runs them in this order, so
      // an interrupted pipeline can leave an index entry pointing at nothing, never a live token
      // that its grant's index no longer names.
      await Promise.all([
        // The consumed marker stays until its own TTL: a request that read this token a moment
        // ago must still lose its claim (see revokeByGrantId).
        store.del(key),
        payload?.grantId ? store.srem(oidcKeys.grant(payload.grantId), key) : undefined,
        payload?.accountId ? store.srem(oidcKeys.account(payload.accountId), key) : undefined,
      ]);
    }

    async revokeByGrantId(grantId: string) {
      await flushPending(currentTokenBatch());
      const grantKey = oidcKeys.grant(grantId);
      const keys = await store.smembers(grantKey);
      if (keys.length === 0) return;
      // The consumed markers are left to expire with their TTL (at most the model's lifetime).
      // Deleting them would free a use: of several requests racing with one code or refresh
      // token, the first loser revokes the grant here, and a third that had already read the
      // token would then find no marker, claim it and be answered with new tokens, a second
      // winner whose ID token stays valid.
      await store.del(...keys);
      // Remove only what we deleted instead of the whole set: a token issued under this grant
      // while we ran keeps its index entry, so a later revocation still finds it.
      await Promise.all(keys.map((key) => store.srem(grantKey, key)));
    }
  };
}
