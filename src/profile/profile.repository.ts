import type { Queryable } from '../accounts/accounts.repository.ts';

/** Whether the account holds an operator role (admin or support). */
export async function isOperator(db: Queryable, accountId: string): Promise<boolean> {
  return (await db('operator_roles').where({ account_id: accountId }).first('account_id')) !== undefined;
}

export async function deleteCredential(db: Queryable, id: string): Promise<void> {
  await db('credentials').where({ id }).delete();
}
