/**
 * The tokens bench's second baseline: the plainest Redis adapter oidc-provider can run on, in the
 * shape the library's documentation sketches (one key per model instance, a list per grant), made
 * as lean as it goes: plain commands with no MULTI, the payload as one JSON string read together
 * with its consumed marker by one MGET, and none of Nyckel's fail-closed wrappers, metrics,
 * budgets or atomic scripts. ioredis without auto-pipelining, which measured slower here (it
 * builds a Pipeline object per batch). It answers one question: what does keeping oidc-provider's
 * state in Redis, rather than in the process's memory, cost the library by itself?
 *
 * Not for production: consume() is a separate write after find(), so two concurrent requests can
 * both redeem one code (Nyckel's adapter claims it atomically, src/store/redis-scripts.ts).
 */
import type { Redis } from 'ioredis';
import type { Adapter, AdapterConstructor, AdapterPayload } from 'oidc-provider';

const grantable = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);

export function plainRedisAdapter(client: Redis, prefix: string): AdapterConstructor {
  const grantKey = (grantId: string) => `${prefix}grant:${grantId}`;
  const uidKey = (uid: string) => `${prefix}uid:${uid}`;
  const userCodeKey = (userCode: string) => `${prefix}usercode:${userCode}`;

  return class PlainRedisAdapter implements Adapter {
    readonly name: string;

    constructor(name: string) {
      this.name = name;
    }

    key(id: string): string {
      return `${prefix}${this.name}:${id}`;
    }

    /** The payload as JSON; `<key>:consumed` once consumed. */
    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const key = this.key(id);
      const writes: Promise<unknown>[] = [client.set(key, JSON.stringify(payload), 'EX', expiresIn)];
      if (grantable.has(this.name) && payload.grantId) {
        // The grant's list lives as long as its longest-lived member.
        const list = grantKey(payload.grantId);
        writes.push(client.rpush(list, key), client.expire(list, expiresIn, 'NX'), client.expire(list, expiresIn, 'GT'));
      }
      if (payload.uid) writes.push(client.set(uidKey(payload.uid), id, 'EX', expiresIn));
      if (payload.userCode) writes.push(client.set(userCodeKey(payload.userCode), id, 'EX', expiresIn));
      await Promise.all(writes);
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      const key = this.key(id);
      const [payload, consumed] = await client.mget(key, `${key}:consumed`);
      if (!payload) return undefined;
      return { ...(JSON.parse(payload) as AdapterPayload), ...(consumed ? { consumed: Number(consumed) } : {}) };
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const id = await client.get(uidKey(uid));
      return id ? this.find(id) : undefined;
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      const id = await client.get(userCodeKey(userCode));
      return id ? this.find(id) : undefined;
    }

    async consume(id: string): Promise<void> {
      // At most as long as any model lives (oidc-provider's longest default, a refresh token's 14 days).
      await client.set(`${this.key(id)}:consumed`, Math.floor(Date.now() / 1000), 'EX', 14 * 24 * 3600);
    }

    async destroy(id: string): Promise<void> {
      await client.del(this.key(id), `${this.key(id)}:consumed`);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      const keys = await client.lrange(grantKey(grantId), 0, -1);
      await client.del(...keys, grantKey(grantId));
    }
  };
}
