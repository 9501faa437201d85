import type { Queryable } from '../../accounts/accounts.repository.ts';

/**
 * Serialises changes to one account's credentials: every transaction that adds or removes
 * credentials under a rule ("one TOTP", "keep a way to sign in") takes this row lock first, so
 * two concurrent changes cannot both pass the rule.
 */
export async function lockAccountRow(trx: Queryable, accountId: string): Promise<boolean> {
  const row = await trx('accounts').where({ id: accountId }).forUpdate().first('id');
  return row !== undefined;
}

/** Stores a TOTP credential; `sealed` is the seed sealed with ctx.secretBox. */
export async function insertTotpCredential(trx: Queryable, accountId: string, sealed: string, at: Date): Promise<string> {
  const [row] = await trx('credentials')
    .insert({ account_id: accountId, type: 'totp', secret: sealed, data: JSON.stringify({ label: 'Authenticator' }), created_at: at })
    .returning('id');
  return (row as { id: string }).id;
}

/** Removes every TOTP credential of the account but `keepId`; returns the removed ids. */
export async function deleteOtherTotpCredentials(trx: Queryable, accountId: string, keepId: string): Promise<string[]> {
  const rows = await trx('credentials').where({ account_id: accountId, type: 'totp' }).whereNot({ id: keepId }).delete().returning('id');
  return (rows as { id: string }[]).map((r) => r.id);
}


export async function totpCredentialExists(trx: Queryable, accountId: string, id: string): Promise<boolean> {
  return (await trx('credentials').where({ id, account_id: accountId, type: 'totp' }).first('id')) !== undefined;
}
