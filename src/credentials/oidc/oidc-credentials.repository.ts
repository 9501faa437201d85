import type { Queryable } from '../../accounts/accounts.repository.ts';
import { issuerHost } from '../../upstream/upstream-providers.ts';

/** An upstream identity as the credentials table keys it. */
export interface OidcIdentityKey {
  issuer: string;
  subject: string;
}

export interface OidcCredential {
  id: string;
  account_id: string;
}

/**
 * The credential an upstream identity is bound to: the issuer's host in `provider`, the subject
 * in `subject` (the unique index), and the exact issuer in `data.issuer` — a Microsoft host
 * serves every tenant, so the host alone does not name the issuer. Credentials imported before
 * the issuer was recorded have none and match on host and subject.
 */
export async function findOidcCredential(db: Queryable, key: OidcIdentityKey): Promise<OidcCredential | null> {
  const row = await db('credentials')
    .where({ type: 'oidc', provider: issuerHost(key.issuer), subject: key.subject })
    .andWhere((q) => q.whereRaw("data->>'issuer' = ?", [key.issuer]).orWhereRaw("data->>'issuer' is null"))
    .first('id', 'account_id');
  return (row as OidcCredential | undefined) ?? null;
}

export class IdentityTakenError extends Error {
  override readonly name = 'IdentityTakenError';
}

/** Binds an upstream identity to an account. Throws IdentityTakenError when another binding holds it. */
export async function insertOidcCredential(
  db: Queryable,
  accountId: string,
  identity: OidcIdentityKey & { provider: string; tenantId: string | null },
  at: Date,
): Promise<string> {
  try {
    const [row] = await db('credentials')
      .insert({
        account_id: accountId,
        type: 'oidc',
        provider: issuerHost(identity.issuer),
        subject: identity.subject,
        data: JSON.stringify({ issuer: identity.issuer, upstream: identity.provider, ...(identity.tenantId ? { tid: identity.tenantId } : {}) }),
        created_at: at,
      })
      .returning('id');
    return (row as { id: string }).id;
  } catch (error) {
    if ((error as { code?: string }).code === '23505') throw new IdentityTakenError();
    throw error;
  }
}

/** Unbinds every upstream identity of the account; answers what it removed (id and issuer host). */
export async function deleteOidcCredentials(db: Queryable, accountId: string): Promise<{ id: string; provider: string | null }[]> {
  const linked = (await db('credentials').where({ account_id: accountId, type: 'oidc' }).select('id', 'provider')) as { id: string; provider: string | null }[];
  if (linked.length > 0) await db('credentials').whereIn('id', linked.map((row) => row.id)).delete();
  return linked;
}
