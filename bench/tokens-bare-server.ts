/**
 * The baseline of the tokens bench, in its own process: a bare oidc-provider with its default
 * in-memory adapter, a static client and a trivial findAccount, with Nyckel's grants, token
 * lifetimes, PKCE requirement, refresh-token rotation and ES256 ID tokens, behind the same Node
 * HTTP server settings. Started by bench/tokens.bench.ts over IPC.
 *
 * With BENCH_BARE_STORE=redis (and REDIS_URL), the same provider keeps its state in Redis through
 * the plainest adapter (bench/plain-redis-adapter.ts): the second baseline, which shows what Redis
 * costs the library by itself.
 */
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import Provider, { type ClientMetadata, type Configuration } from 'oidc-provider';
import { tokenTtl } from '../src/oidc/provider.ts';
import { plainRedisAdapter } from './plain-redis-adapter.ts';
import { clientId, clientSecret, freePort, listen, mintCodes, redirectUri, reportStartupFailure, serve } from './tokens-shared.ts';

try {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const redis = process.env.BENCH_BARE_STORE === 'redis' ? new Redis(process.env.REDIS_URL!) : undefined;
  const prefix = `bench-bare:${randomBytes(6).toString('hex')}:`;
  const key = { ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }), kid: 'bare', alg: 'ES256', use: 'sig' };
  const provider = new Provider(issuer, {
    ...(redis ? { adapter: plainRedisAdapter(redis, prefix) } : {}),
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        id_token_signed_response_alg: 'ES256',
        token_endpoint_auth_method: 'client_secret_basic',
      } satisfies ClientMetadata,
    ],
    jwks: { keys: [key] as NonNullable<Configuration['jwks']>['keys'] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    findAccount: (async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) })) as Configuration['findAccount'],
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    scopes: ['openid', 'offline_access'],
    rotateRefreshToken: true,
    issueRefreshToken: async (_ctx, client, code) => client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access'),
    ttl: { ...tokenTtl },
  });
  const server = await listen(provider.callback(), port);
  const accounts = Array.from({ length: 50 }, () => randomUUID());

  let minted = 0;
  serve({
    tokenUrl: `${issuer}/token`,
    description: redis ? 'bare oidc-provider, plain Redis adapter' : 'bare oidc-provider, in-memory adapter',
    mint: async (count) => {
      const codes = await mintCodes(provider, accounts, count, minted);
      minted += count;
      return codes;
    },
    io: () => ({ dbQueries: 0, storeCalls: 0 }),
    cleanup: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      if (redis) {
        for (let cursor = '0'; ; ) {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
          if (keys.length) await redis.del(...keys);
          if ((cursor = next) === '0') break;
        }
        await redis.quit();
      }
    },
  });
} catch (error) {
  reportStartupFailure(error);
}
