import type { Queryable } from '../accounts/accounts.repository.ts';
import type { CredentialCounts } from '../login/next-step.ts';

export type CredentialType = 'password' | 'oidc' | 'webauthn' | 'totp';

export interface CredentialRecord {
  id: string;
  account_id: string;
  type: CredentialType;
  provider: string | null;
  subject: string | null;
  secret: string | null;
  created_at: Date;
  last_used_at: Date | null;
}

/** What a client may see of a credential: never its secret. */
export interface CredentialSummary {
  id: string;
  type: CredentialType;
  provider: string | null;
}

/**
 * An id no account has: looking up credentials for an unknown email runs the same query as for
 * a real account, so both take the same time.
 */
export const noAccountId = '00000000-0000-0000-0000-000000000000';

/** The columns of a CredentialRecord, for every query that reads one. */
export const credentialColumns = ['id', 'account_id', 'type', 'provider', 'subject', 'secret', 'created_at', 'last_used_at'] as const;

export async function listCredentials(db: Queryable, accountId: string | null): Promise<CredentialRecord[]> {
  const rows = await db('credentials')
    .where({ account_id: accountId ?? noAccountId })
    .orderBy('created_at')
    .select(...credentialColumns);
  return rows as CredentialRecord[];
}

export function summarizeCredentials(rows: readonly CredentialRecord[]): CredentialSummary[] {
  return rows.map(({ id, type, provider }) => ({ id, type, provider }));
}

export function countCredentials(rows: readonly Pick<CredentialRecord, 'type'>[]): CredentialCounts {
  const counts: CredentialCounts = { password: 0, oidc: 0, webauthn: 0, totp: 0 };
  for (const row of rows) counts[row.type] += 1;
  return counts;
}

/**
 * Sets the account's password hash: updates its password credential, or creates one (`created`:
 * the account had no password). An account has at most one password credential; extras left by
 * imports are folded into the first. The account row is locked first (inside a transaction, until
 * it ends), so two writers of the account's password (a reset and a sign-in's first password, say)
 * take turns rather than both creating one.
 */
export async function setPasswordHash(db: Queryable, accountId: string, hash: string, at: Date): Promise<{ id: string; created: boolean }> {
  await db('accounts').where({ id: accountId }).forUpdate().first('id');
  const existing = await db('credentials').where({ account_id: accountId, type: 'password' }).orderBy('created_at').select('id');
  const [first, ...extras] = existing as { id: string }[];
  if (extras.length > 0) await db('credentials').whereIn('id', extras.map((e) => e.id)).delete();
  if (first) {
    await db('credentials').where({ id: first.id }).update({ secret: hash });
    return { id: first.id, created: false };
  }
  const [row] = await db('credentials')
    .insert({ account_id: accountId, type: 'password', secret: hash, created_at: at })
    .returning('id');
  return { id: (row as { id: string }).id, created: true };
}

/**
 * The account's first password, only while it has none: null when one exists (set meanwhile by a
 * reset, or by the same person in another tab), which is left as it is. Locks the account row as
 * setPasswordHash does; call it inside a transaction.
 */
export async function createFirstPassword(db: Queryable, accountId: string, hash: string, at: Date): Promise<string | null> {
  await db('accounts').where({ id: accountId }).forUpdate().first('id');
  const existing = await db('credentials').where({ account_id: accountId, type: 'password' }).first('id');
  if (existing) return null;
  const [row] = await db('credentials').insert({ account_id: accountId, type: 'password', secret: hash, created_at: at }).returning('id');
  return (row as { id: string }).id;
}

/**
 * Replaces a legacy password hash with its upgrade (argon2id), only while the stored hash is still
 * the one that was verified: a reset or a change that landed during the (slow) legacy check keeps
 * its new password, never overwritten by the old one's upgrade.
 */
export async function upgradeCredentialSecret(db: Queryable, id: string, verified: string, upgraded: string): Promise<void> {
  await db('credentials').where({ id, secret: verified }).update({ secret: upgraded });
}

export async function touchCredential(db: Queryable, id: string, at: Date): Promise<void> {
  await db('credentials').where({ id }).update({ last_used_at: at });
}
