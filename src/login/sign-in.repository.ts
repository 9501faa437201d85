import { accountColumns, normalizeEmail, type AccountRecord, type Queryable } from '../accounts/accounts.repository.ts';
import { countAuditAction } from '../observability/metrics.ts';
import { credentialColumns, type CredentialRecord } from '../credentials/credentials.repository.ts';

/**
 * The two statements on every step of a sign-in, each one round trip to the database: most of
 * a sign-in's time outside password hashing is waiting on round trips, not on the queries.
 */

/**
 * The account of an email and its credentials (oldest first), in one query. An unknown email
 * runs the same query and answers no account, so both take the same time.
 */
export async function findAccountWithCredentials(
  db: Queryable,
  email: string,
): Promise<{ account: AccountRecord | null; credentials: CredentialRecord[] }> {
  const rows: Record<string, unknown>[] = await db('accounts as a')
    .leftJoin('credentials as c', 'c.account_id', 'a.id')
    .where('a.email', normalizeEmail(email))
    .orderBy('c.created_at')
    .select(...accountColumns.map((column) => `a.${column}`), ...credentialColumns.map((column) => `c.${column} as c_${column}`));
  const first = rows[0];
  if (!first) return { account: null, credentials: [] };
  const account = Object.fromEntries(accountColumns.map((column) => [column, first[column]])) as unknown as AccountRecord;
  const credentials = rows
    .filter((row) => row.c_id !== null)
    .map((row) => Object.fromEntries(credentialColumns.map((column) => [column, row[`c_${column}`]])) as unknown as CredentialRecord);
  return { account, credentials };
}

export interface SignInRecord {
  accountId: string;
  at: Date;
  /** A sign-in by emailed code proves the address. */
  emailVerified: boolean;
  /** The credentials used (first and second factor): their last use is set. */
  credentialIds: string[];
  ip: string | null;
  userAgent: string | null;
  /** The audit event's details: method and amr, never secrets. */
  details: Record<string, unknown>;
}

/**
 * A completed sign-in in one statement: last_login_at set and any lock cleared, the credentials'
 * last use, and the `login.succeeded` audit event. One statement is also one transaction, so a
 * sign-in is recorded whole or not at all.
 */
export async function recordSignIn(db: Queryable, record: SignInRecord): Promise<void> {
  await db.raw(
    `with account_update as (
       update accounts set last_login_at = :at, locked_until = null, updated_at = :at,
         email_verified = email_verified or :emailVerified
       where id = :accountId
     ), credential_update as (
       update credentials set last_used_at = :at where id = any(:credentialIds::uuid[])
     )
     insert into audit_events (action, actor_id, target_account_id, ip, user_agent, details, at)
     values ('login.succeeded', :accountId, :accountId, :ip, :userAgent, :details::jsonb, :at)`,
    {
      at: record.at,
      emailVerified: record.emailVerified,
      accountId: record.accountId,
      credentialIds: record.credentialIds,
      ip: record.ip,
      userAgent: record.userAgent?.slice(0, 512) ?? null,
      details: JSON.stringify(record.details),
    },
  );
  countAuditAction('login.succeeded', record.details);
}
