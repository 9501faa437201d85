import type { Knex } from 'knex';
import { accountColumns, normalizeEmail, type AccountRecord, type Queryable } from '../accounts/accounts.repository.ts';
import { countAuditAction } from '../observability/metrics.ts';
import { credentialColumns, type CredentialRecord } from '../credentials/credentials.repository.ts';
import { directStatement } from '../db/direct-statement.ts';
import { StatementBatcher } from '../db/statement-batcher.ts';

/**
 * The two statements on every step of a sign-in. Most of a sign-in's cost outside password
 * hashing is round trips, not the queries: each one is a socket write and read in this process
 * (and a wake-up of a database backend), and knex's query building on top. So:
 * - The SQL is written out once, at load, with positional bindings: nothing is built per call,
 *   and on PostgreSQL it goes to the driver without knex's query path (src/db/direct-statement.ts).
 * - Concurrent sign-ins share a statement (src/db/statement-batcher.ts): calls made while this
 *   statement is at the database go as one statement over a set of inputs once it is back. Under
 *   load that is one round trip for several sign-ins; alone, a call is a batch of one, sent at once.
 * Both statements take a set of inputs even when it holds one, so every call runs the same SQL.
 */

export interface AccountFacts {
  account: AccountRecord | null;
  credentials: CredentialRecord[];
}

/**
 * Each input email's account and its credentials (oldest first); an email without an account
 * contributes no rows. `q_email` names the input a row belongs to, as given: citext decides the
 * match, not a JavaScript lower-casing. `offset 0` keeps the lateral subquery from being merged
 * into a join: the planner cannot see how many emails the array holds, and without it may scan
 * every account once per batch instead of looking each email up in the index.
 */
const selectAccountsWithCredentialsStatement = directStatement(`select q.email as q_email, x.*
  from jsonb_array_elements_text(?::jsonb) with ordinality as q(email, n)
  cross join lateral (
    select ${[...accountColumns.map((column) => `a."${column}"`), ...credentialColumns.map((column) => `c."${column}" as "c_${column}"`)].join(', ')}
    from accounts as a left join credentials as c on c.account_id = a.id
    where a.email = q.email::citext
    offset 0
  ) as x
  order by q.n, x.c_created_at asc`);

async function selectAccountsWithCredentials(db: Queryable, emails: string[]): Promise<AccountFacts[]> {
  // An email asked for twice in one batch is looked up once (else its rows would come twice).
  const distinct = [...new Set(emails)];
  const { rows } = await selectAccountsWithCredentialsStatement(db, [JSON.stringify(distinct)]);
  const byEmail = new Map<unknown, Record<string, unknown>[]>();
  for (const row of rows) {
    const group = byEmail.get(row.q_email);
    if (group) group.push(row);
    else byEmail.set(row.q_email, [row]);
  }
  return emails.map((email) => factsOf(byEmail.get(email) ?? []));
}

function factsOf(rows: Record<string, unknown>[]): AccountFacts {
  const first = rows[0];
  if (!first) return { account: null, credentials: [] };
  const account = Object.fromEntries(accountColumns.map((column) => [column, first[column]])) as unknown as AccountRecord;
  const credentials = rows
    .filter((row) => row.c_id !== null)
    .map((row) => Object.fromEntries(credentialColumns.map((column) => [column, row[`c_${column}`]])) as unknown as CredentialRecord);
  return { account, credentials };
}

/**
 * The account of an email and its credentials (oldest first). An unknown email runs the same
 * statement and answers no account, so both take the same time.
 */
export async function findAccountWithCredentials(db: Queryable, email: string): Promise<AccountFacts> {
  return batched(db, 'facts', selectAccountsWithCredentials, normalizeEmail(email));
}

export interface SignInRecord {
  accountId: string;
  at: Date;
  /** A sign-in by emailed code proves the address. */
  emailVerified: boolean;
  /** The sign-in ends the account's lock (false when a known browser signed in: lockout.ts). */
  clearsLock: boolean;
  /** The credentials used (first and second factor): their last use is set. */
  credentialIds: string[];
  ip: string | null;
  userAgent: string | null;
  /** The audit event's details: method and amr, never secrets. */
  details: Record<string, unknown>;
}

/**
 * Completed sign-ins in one statement: last_login_at set and the lock cleared (when the sign-in
 * ends it), the credentials'
 * last use, and a `login.succeeded` audit event each (in input order). One statement is also one
 * transaction, so a batch is recorded whole or not at all. The inputs travel as one JSON array.
 *
 * The rows to update are locked first, in id order (`locked_accounts`, `locked_credentials`:
 * sorted, then locked, before any update reads them), so two batches that share accounts wait
 * for each other instead of deadlocking. Every lookup is by primary key through `= any(array)`,
 * which the planner answers from the index whatever it guesses of the batch's size. An account
 * signing in twice in one batch keeps the later time and either sign-in's email proof.
 */
const recordSignInsStatement = directStatement(`with input as (
       select * from jsonb_to_recordset(?::jsonb) as r(
         n int, at timestamptz, account_id uuid, email_verified boolean, clears_lock boolean, credential_ids uuid[],
         ip text, user_agent text, details jsonb)
     ), used as (
       select u.id, max(input.at) as at from input, unnest(input.credential_ids) as u(id) group by u.id
     ), locked_accounts as materialized (
       select id from accounts where id = any(array(select account_id from input)) order by id for update
     ), locked_credentials as materialized (
       select id from credentials where id = any(array(select id from used)) order by id for update
     ), account_update as (
       update accounts as a set last_login_at = i.at, updated_at = i.at,
         locked_until = case when i.clears_lock then null else a.locked_until end,
         email_verified = a.email_verified or i.email_verified
       from (select account_id, max(at) as at, bool_or(email_verified) as email_verified, bool_or(clears_lock) as clears_lock
             from input group by account_id) as i
       where a.id = i.account_id and a.id = any(array(select id from locked_accounts))
     ), credential_update as (
       update credentials as c set last_used_at = used.at from used
       where c.id = used.id and c.id = any(array(select id from locked_credentials))
     )
     insert into audit_events (action, actor_id, target_account_id, ip, user_agent, details, at)
     select 'login.succeeded', account_id, account_id, ip, user_agent, details, at from input order by n`);

async function insertSignIns(db: Queryable, records: SignInRecord[]): Promise<void[]> {
  const input = records.map((record, n) => ({
    n,
    at: record.at,
    account_id: record.accountId,
    email_verified: record.emailVerified,
    clears_lock: record.clearsLock,
    credential_ids: record.credentialIds,
    ip: record.ip,
    user_agent: record.userAgent?.slice(0, 512) ?? null,
    details: record.details,
  }));
  await recordSignInsStatement(db, [JSON.stringify(input)]);
  return records.map(() => undefined);
}

export async function recordSignIn(db: Queryable, record: SignInRecord): Promise<void> {
  await batched(db, 'sign-ins', insertSignIns, record);
  countAuditAction('login.succeeded', record.details);
}

const batchers = new WeakMap<Knex, Map<string, StatementBatcher<never, unknown>>>();

/**
 * `run` over this call's input, batched with concurrent calls on the same database. Inside a
 * transaction the statement runs alone, on the transaction's connection.
 */
function batched<I, O>(db: Queryable, name: string, run: (db: Queryable, inputs: I[]) => Promise<O[]>, input: I): Promise<O> {
  if (db.isTransaction) return run(db, [input]).then(([output]) => output as O);
  let byName = batchers.get(db);
  if (!byName) batchers.set(db, (byName = new Map()));
  let batcher = byName.get(name) as StatementBatcher<I, O> | undefined;
  if (!batcher) {
    batcher = new StatementBatcher<I, O>((inputs) => run(db, inputs));
    byName.set(name, batcher as unknown as StatementBatcher<never, unknown>);
  }
  return batcher.call(input);
}
