import type { Knex } from 'knex';
import type { Queryable } from '../../accounts/accounts.repository.ts';
import type { CredentialSummary } from '../../credentials/credentials.repository.ts';
import { likeContains } from '../search-pattern.ts';
import { isTenantActive } from '../../tenants/tenant-activity.ts';

export interface AccountRow {
  id: string;
  name: string;
  email: string;
  image: string | null;
  is_user: boolean;
  is_stakeholder: boolean;
  last_login_at: Date | null;
  /** The mirror of the sign-in lock (src/login/lockout.ts); it keeps a lock's end after it has passed. */
  locked_until: Date | null;
}

export interface TenantAccessSummary {
  id: string;
  slug: string;
  name: string;
  /** The access is switched on and the tenant is not deactivated: the person can open it. */
  active: boolean;
}

/** Names sort as people read them (case-insensitively), whatever the database collation; then by email. */
const byName = 'lower(name), name, email';

const accountColumns = ['id', 'name', 'email', 'image', 'is_user', 'is_stakeholder', 'last_login_at', 'locked_until'] as const;

/**
 * Most matches fetched through the trigram indexes and sorted; a term with more is "broad" and is
 * answered by walking the name index instead (see searchAccountRows).
 */
export const broadTermMatches = 2000;

/**
 * Name or email containing `term`, case-insensitively, first `limit` by name. Written as
 * `ILIKE '%term%'` on `name` and `email::text` so the trigram indexes of migration 001 can answer
 * it. Two plans are right for different terms, and PostgreSQL cannot tell which: it assumes the
 * matches are spread evenly through the name order, so for a first name ("Maja": 2% of accounts,
 * all sorting late) it walks accounts_name_order and reads most of the table. So we measure: the
 * trigram indexes fetch up to broadTermMatches + 1 matches (a bitmap scan, cost in proportion to
 * the matches) and the first `limit` by name are kept. Only a term with more matches than that
 * (common enough that the first ones in name order come soon) walks the name index; so does a
 * term under three characters, which has no trigram to look up and is nearly always common. The
 * plans are forced with `set local` inside one transaction, so nothing leaks to other queries.
 * bench/search.bench.ts measures both paths over 100,000 accounts.
 */
export async function searchAccountRows(db: Knex, term: string, limit: number): Promise<AccountRow[]> {
  // A term of only punctuation ("@@@", "...", "%%%") finds no one worth finding, yet its trigrams
  // match nearly every row of the GIN indexes: answered without asking the database.
  if (!searchable(term)) return [];
  const pattern = likeContains(term);
  const matching = (q: Knex.QueryBuilder) =>
    q.where((w) => w.whereRaw('name ilike ?', [pattern]).orWhereRaw('email::text ilike ?', [pattern]));
  return db.transaction(async (trx) => {
    await trx.raw('set local enable_seqscan = off');
    if (term.length < 3) return walkNameOrder(trx);
    await trx.raw('set local enable_indexscan = off');
    const candidates = matching(trx('accounts')).limit(broadTermMatches + 1).select(...accountColumns);
    const found = (await trx
      .select('*', trx.raw('count(*) over () as matches'))
      .from(candidates.as('m'))
      .orderByRaw(byName)
      .limit(limit)) as (AccountRow & { matches: string | number })[];
    if (Number(found[0]?.matches ?? 0) <= broadTermMatches) return found.map(({ matches: _matches, ...row }) => row);
    await trx.raw('set local enable_indexscan = on');
    return walkNameOrder(trx);
  });

  async function walkNameOrder(trx: Knex.Transaction): Promise<AccountRow[]> {
    await trx.raw('set local enable_bitmapscan = off');
    return (await matching(trx('accounts')).orderByRaw(byName).limit(limit).select(...accountColumns)) as AccountRow[];
  }
}

/** Whether a search term has a letter or a digit to look for. */
export function searchable(term: string): boolean {
  return /[\p{L}\p{N}]/u.test(term);
}

export async function listAccountRows(db: Queryable, limit: number): Promise<AccountRow[]> {
  return (await db('accounts')
    .orderByRaw(byName)
    .limit(limit)
    .select(...accountColumns)) as AccountRow[];
}

/**
 * A credential as the console lists it: the login API's summary, plus what tells two of one kind
 * apart (an operator helping someone who lost one of two phones must know which one they delete):
 * when it was added, and a passkey's own name. Never a secret, subject or key.
 */
export interface ConsoleCredentialSummary extends CredentialSummary {
  created_at: Date;
  /** The name a passkey was given when it was added (data.name); null for other kinds. */
  name: string | null;
}

/** Credentials of many accounts in one query, grouped by account, oldest first; never a secret. */
export async function credentialsByAccount(db: Queryable, accountIds: readonly string[]): Promise<Map<string, ConsoleCredentialSummary[]>> {
  const grouped = new Map<string, ConsoleCredentialSummary[]>();
  if (accountIds.length === 0) return grouped;
  const rows = (await db('credentials')
    .whereIn('account_id', accountIds)
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .select('id', 'account_id', 'type', 'provider', 'created_at', db.raw("case when type = 'webauthn' then data->>'name' end as name"))) as (ConsoleCredentialSummary & {
    account_id: string;
  })[];
  for (const { account_id, ...credential } of rows) {
    const list = grouped.get(account_id) ?? [];
    list.push(credential);
    grouped.set(account_id, list);
  }
  return grouped;
}

/** Tenant access of many accounts in one query, grouped by account, tenants by name. */
export async function tenantAccessByAccount(
  db: Queryable,
  accountIds: readonly string[],
  now: Date,
): Promise<Map<string, TenantAccessSummary[]>> {
  const grouped = new Map<string, TenantAccessSummary[]>();
  if (accountIds.length === 0) return grouped;
  const rows = (await db('tenant_access as a')
    .join('tenants as t', 't.id', 'a.tenant_id')
    .whereIn('a.account_id', accountIds)
    .orderByRaw('lower(t.name), t.name, t.slug')
    .select('a.account_id', 't.id', 't.slug', 't.name', 'a.active', 't.inactive_at')) as {
    account_id: string;
    id: string;
    slug: string;
    name: string;
    active: boolean;
    inactive_at: Date | null;
  }[];
  for (const row of rows) {
    const list = grouped.get(row.account_id) ?? [];
    const tenantActive = isTenantActive(row.inactive_at, now);
    list.push({ id: row.id, slug: row.slug, name: row.name, active: row.active && tenantActive });
    grouped.set(row.account_id, list);
  }
  return grouped;
}

/** The newest `login.locked` audit row about an account (src/login/lockout.ts writes it). */
export interface LatestLockRow {
  at: Date;
  /** Failed attempts in a row when it locked (details.consecutive_failures); null if not recorded. */
  consecutive_failures: number | null;
  ip: string | null;
  user_agent: string | null;
}

/**
 * The newest `login.locked` row about each account, in one query. Each account's row is read off
 * the (target_account_id, at) index newest first, stopping at the first lock: `distinct on` over
 * every audit row of the accounts would read all their failed sign-ins, which anyone who knows an
 * address can add.
 */
export async function latestLocksByAccount(db: Queryable, accountIds: readonly string[]): Promise<Map<string, LatestLockRow>> {
  const latest = new Map<string, LatestLockRow>();
  if (accountIds.length === 0) return latest;
  const { rows } = (await db.raw(
    `select q.id as account_id, e.at, e.ip, e.user_agent, (e.details->>'consecutive_failures')::int as consecutive_failures
       from jsonb_array_elements_text(?::jsonb) as q(id)
       cross join lateral (
         select at, ip, user_agent, details from audit_events
         where target_account_id = q.id::uuid and action = 'login.locked'
         order by at desc
         limit 1
       ) as e`,
    [JSON.stringify(accountIds)],
  )) as { rows: (LatestLockRow & { account_id: string })[] };
  for (const { account_id, ...lock } of rows) latest.set(account_id, { ...lock, at: new Date(lock.at) });
  return latest;
}
