import { generateKeyPairSync, randomBytes, type JsonWebKey } from 'node:crypto';
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
  const cutoff = new Date(ctx.now().getTime() - retiredKeyGraceSeconds * 1000);
  const rows: { private_jwk: string; retired_at: Date | null }[] = await ctx
    .db('signing_keys')
    .where((q) => q.whereNull('retired_at').orWhere('retired_at', '>', cutoff))
    .orderByRaw('retired_at is not null, created_at desc');
  return rows.map((row) => JSON.parse(ctx.secretBox.open(row.private_jwk)) as PrivateJwk);
}

/**
 * Rotation: a new key per algorithm becomes the signer; the old ones are retired but listed in
 * the JWKS for the grace period. Running instances pick the new keys up on restart.
 */
export async function rotateSigningKeys(ctx: Pick<Context, 'db' | 'secretBox' | 'now'>): Promise<string[]> {
  return ctx.db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(?)', [signingKeysLock]);
    await trx('signing_keys').whereNull('retired_at').update({ retired_at: ctx.now() });
    const kids: string[] = [];
    for (const alg of ['ES256', 'RS256'] as const) {
      const jwk = generate(alg);
      await trx('signing_keys').insert({ kid: jwk.kid, alg, private_jwk: ctx.secretBox.seal(JSON.stringify(jwk)) });
      kids.push(jwk.kid);
    }
    return kids;
  });
}
