import { createPublicKey, generateKeyPairSync, randomBytes, type JsonWebKey } from 'node:crypto';
import type { Knex } from 'knex';
import type { Context } from '../context.ts';

export type SigningAlg = 'ES256' | 'RS256';

export interface PrivateJwk extends JsonWebKey {
  kid: string;
  alg: SigningAlg;
  use: 'sig';
}

/** A retired key stays in the JWKS this long so tokens it signed still verify. */
export const retiredKeyGraceSeconds = 2 * 24 * 3600;

/**
 * A retired key stays with oidc-provider this long, verifying only: an ID token comes back as
 * `id_token_hint` (logout, prompt=none) for as long as the grant it was issued in lives (14 days,
 * provider.ts tokenTtl), and oidc-provider checks a hint's signature, not its
 * expiry. Dropped with the JWKS's grace, an application that kept its sign-in's ID token would
 * see its logout end on an error page. Relying parties are not offered the key for longer: the
 * JWKS keeps retiredKeyGraceSeconds.
 */
export const retiredKeyHintSeconds = 14 * 24 * 3600;

/**
 * A rotated key is published this long before it signs. Every instance's JWKS re-reads the keys
 * (jwksRefreshSeconds), so by the time any instance signs with the new key, all of them list it,
 * whichever instance a relying party fetches the JWKS from during a rolling restart.
 */
export const keyPublishSeconds = 10 * 60;

/** How often an instance re-reads the keys it publishes. */
export const jwksRefreshSeconds = 60;

/** A public JWK as the JWKS lists it. */
export interface PublicJwk extends JsonWebKey {
  kid: string;
  alg: SigningAlg;
  use: 'sig';
}

interface KeyRow {
  private_jwk: string;
  activates_at: Date | null;
  retired_at: Date | null;
}

function generate(alg: SigningAlg): PrivateJwk {
  const { privateKey } =
    alg === 'ES256'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid: randomBytes(12).toString('base64url'), alg, use: 'sig' };
}

/** Arbitrary constant naming the advisory lock around key creation and rotation. */
const signingKeysLock = 7_246_301;

async function insertKey(ctx: { db: Knex; secretBox: Context['secretBox'] }, alg: SigningAlg): Promise<void> {
  const jwk = generate(alg);
  await ctx.db('signing_keys').insert({ kid: jwk.kid, alg, private_jwk: ctx.secretBox.seal(JSON.stringify(jwk)) });
}

/**
 * The signing keys oidc-provider uses, newest active key first for each algorithm (it signs with
 * the first key matching an alg), then retired keys still inside their grace period (they only
 * verify). Generated on first start, never the library's development keys.
 */
export async function loadSigningKeys(ctx: Pick<Context, 'db' | 'secretBox' | 'now'>): Promise<PrivateJwk[]> {
  // Instances starting together on an empty database must agree on one key per algorithm: the
  // check-then-insert runs under a transaction-scoped advisory lock.
  await ctx.db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(?)', [signingKeysLock]);
    const active = await trx('signing_keys').whereNull('retired_at').select('alg');
    for (const alg of ['ES256', 'RS256'] as const) {
      if (!active.some((row: { alg: string }) => row.alg === alg)) await insertKey({ db: trx, secretBox: ctx.secretBox }, alg);
    }
  });
  return signingKeysNow(ctx);
}

/** The keys oidc-provider should hold now, in loadSigningKeys's order, without creating any. */
export async function signingKeysNow(ctx: Pick<Context, 'db' | 'secretBox' | 'now'>): Promise<PrivateJwk[]> {
  return (await listedKeys(ctx, retiredKeyHintSeconds)).map((row) => JSON.parse(ctx.secretBox.open(row.private_jwk)) as PrivateJwk);
}

/**
 * The keys this instance publishes now, public parts only, in the order loadSigningKeys gives.
 * Read afresh (src/oidc/jwks.routes.ts caches it for jwksRefreshSeconds): a key rotated in after
 * this instance started is listed before any instance signs with it.
 */
export async function publishedKeys(ctx: Pick<Context, 'db' | 'secretBox' | 'now'>): Promise<PublicJwk[]> {
  return (await listedKeys(ctx, retiredKeyGraceSeconds)).map((row) => {
    const { kid, alg, use, ...jwk } = JSON.parse(ctx.secretBox.open(row.private_jwk)) as PrivateJwk;
    return { ...createPublicKey({ key: jwk, format: 'jwk' }).export({ format: 'jwk' }), kid, alg, use };
  });
}

/**
 * The keys in use: first those signing now, newest first (oidc-provider signs with the first
 * key of an algorithm), then keys published ahead of their activation, then keys retired less
 * than `graceSeconds` ago (they only verify).
 */
async function listedKeys(ctx: Pick<Context, 'db' | 'now'>, graceSeconds: number): Promise<KeyRow[]> {
  const now = ctx.now();
  const cutoff = new Date(now.getTime() - graceSeconds * 1000);
  const rows: (KeyRow & { created_at: Date })[] = await ctx
    .db('signing_keys')
    .where((q) => q.whereNull('retired_at').orWhere('retired_at', '>', cutoff))
    .select('private_jwk', 'activates_at', 'retired_at', 'created_at');
  const time = (value: Date | null) => (value === null ? null : new Date(value).getTime());
  const rank = (row: KeyRow) => {
    const activates = time(row.activates_at);
    if (activates !== null && activates > now.getTime()) return 1;
    const retired = time(row.retired_at);
    return retired !== null && retired <= now.getTime() ? 2 : 0;
  };
  const since = (row: KeyRow & { created_at: Date }) => time(row.activates_at) ?? time(row.created_at)!;
  return rows.sort((a, b) => rank(a) - rank(b) || since(b) - since(a));
}

/**
 * Rotation: a new key per algorithm, published at once and signing `publishSeconds` later; the
 * keys it replaces sign until then and verify for the grace period after. Running instances take
 * up the change within jwksRefreshSeconds (key-refresh.ts), without a restart.
 */
export async function rotateSigningKeys(
  ctx: Pick<Context, 'db' | 'secretBox' | 'now'>,
  { publishSeconds = keyPublishSeconds }: { publishSeconds?: number } = {},
): Promise<{ kids: string[]; activatesAt: Date }> {
  const activatesAt = new Date(ctx.now().getTime() + publishSeconds * 1000);
  return ctx.db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(?)', [signingKeysLock]);
    await trx('signing_keys').whereNull('retired_at').update({ retired_at: activatesAt });
    const kids: string[] = [];
    for (const alg of ['ES256', 'RS256'] as const) {
      const jwk = generate(alg);
      await trx('signing_keys').insert({ kid: jwk.kid, alg, private_jwk: ctx.secretBox.seal(JSON.stringify(jwk)), activates_at: activatesAt });
      kids.push(jwk.kid);
    }
    return { kids, activatesAt };
  });
}
