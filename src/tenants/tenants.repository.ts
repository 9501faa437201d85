import type { Queryable } from '../accounts/accounts.repository.ts';
import { likeContains } from '../admin/search-pattern.ts';
import { tenantActiveAt } from './tenant-activity.ts';

export interface TenantRow {
  id: string;
  name: string;
  slug: string;
  url: string | null;
  inactive_at: Date | null;
  /** Active access of User accounts: the people invoiced for. */
  user_count: number;
}

export interface TenantUser {
  id: string;
  name: string;
  email: string;
  /** The access is switched on (inactive users are greyed in the console). */
  active: boolean;
  /** `admin` for tenant admins, `user` otherwise. */
  role: string;
}

export interface SettingRow {
  key: string;
  value: unknown;
}

/** Names sort as people read them (case-insensitively), whatever the database collation. */
const tenantsByName = 'lower(t.name), t.name, t.slug';

/** Counted once per tenant in a grouped subquery, so a list costs one query whatever its length. */
function tenantsWithUserCount(db: Queryable) {
  const counts = db('tenant_access as a')
    .join('accounts as ac', 'ac.id', 'a.account_id')
    .where({ 'a.active': true, 'ac.is_user': true })
    .groupBy('a.tenant_id')
    .select('a.tenant_id', db.raw('count(*)::int as user_count'));
  return db('tenants as t')
    .leftJoin(counts.as('u'), 'u.tenant_id', 't.id')
    .select('t.id', 't.name', 't.slug', 't.url', 't.inactive_at', db.raw('coalesce(u.user_count, 0)::int as user_count'));
}

export async function listTenants(db: Queryable): Promise<TenantRow[]> {
  return (await tenantsWithUserCount(db).orderByRaw(tenantsByName)) as TenantRow[];
}

/** Tenants whose name or slug contains `term`, case-insensitively, by name. */
export async function searchTenants(db: Queryable, term: string, limit: number): Promise<TenantRow[]> {
  const pattern = likeContains(term);
  return (await tenantsWithUserCount(db)
    .where((q) => q.whereRaw('t.name ilike ?', [pattern]).orWhereRaw('t.slug ilike ?', [pattern]))
    .orderByRaw(tenantsByName)
    .limit(limit)) as TenantRow[];
}

/** Active tenants: never deactivated, or deactivated only from a future date. */
export async function listActiveTenants(db: Queryable, now: Date): Promise<TenantRow[]> {
  return (await tenantsWithUserCount(db)
    .where(tenantActiveAt(now))
    .orderByRaw(tenantsByName)) as TenantRow[];
}

export async function findTenant(db: Queryable, id: string): Promise<TenantRow | null> {
  return ((await tenantsWithUserCount(db).where('t.id', id).first()) as TenantRow | undefined) ?? null;
}

export async function tenantExists(db: Queryable, id: string): Promise<boolean> {
  return (await db('tenants').where({ id }).first('id')) !== undefined;
}

/**
 * People with access to the tenant, active or not: active access first, then by name, the first
 * `limit`. With `term`, only those whose name or email contains it (case-insensitively; `%` and
 * `_` are characters). Active first so a capped answer keeps the people the console shows first.
 */
export async function listTenantUsers(db: Queryable, tenantId: string, options: { term?: string; limit: number }): Promise<TenantUser[]> {
  const query = db('tenant_access as a')
    .join('accounts as ac', 'ac.id', 'a.account_id')
    .where('a.tenant_id', tenantId)
    .orderByRaw('a.active desc, lower(ac.name), ac.name, ac.email')
    .limit(options.limit)
    .select('ac.id', 'ac.name', 'ac.email', 'a.active', 'a.role');
  if (options.term !== undefined) {
    const pattern = likeContains(options.term);
    query.where((q) => q.whereRaw('ac.name ilike ?', [pattern]).orWhereRaw('ac.email::text ilike ?', [pattern]));
  }
  return (await query) as TenantUser[];
}

export class SlugTakenError extends Error {
  override readonly name = 'SlugTakenError';
}

/** Inserts a tenant; a taken slug (the unique index decides, so two racing creations cannot both win) throws SlugTakenError. */
export async function insertTenant(db: Queryable, input: { name: string; slug: string; url: string | null; at: Date }): Promise<string> {
  try {
    const [row] = (await db('tenants')
      .insert({ name: input.name, slug: input.slug, url: input.url, created_at: input.at, updated_at: input.at })
      .returning('id')) as { id: string }[];
    return row!.id;
  } catch (error) {
    if ((error as { code?: string }).code === '23505') throw new SlugTakenError(input.slug);
    throw error;
  }
}

export async function listSettings(db: Queryable, tenantId: string, keys?: readonly string[]): Promise<SettingRow[]> {
  const query = db('tenant_settings').where({ tenant_id: tenantId }).orderBy('key').select('key', 'value');
  if (keys) query.whereIn('key', keys);
  return (await query) as SettingRow[];
}

/** Settings of many tenants in one query: tenant id → key → value. */
export async function settingsByTenant(db: Queryable, tenantIds: readonly string[], keys: readonly string[]): Promise<Map<string, Map<string, unknown>>> {
  const grouped = new Map<string, Map<string, unknown>>();
  if (tenantIds.length === 0) return grouped;
  const rows = (await db('tenant_settings').whereIn('tenant_id', tenantIds).whereIn('key', keys).select('tenant_id', 'key', 'value')) as {
    tenant_id: string;
    key: string;
    value: unknown;
  }[];
  for (const row of rows) {
    const map = grouped.get(row.tenant_id) ?? new Map<string, unknown>();
    map.set(row.key, row.value);
    grouped.set(row.tenant_id, map);
  }
  return grouped;
}

export async function upsertSetting(db: Queryable, tenantId: string, key: string, value: unknown, at: Date): Promise<void> {
  await db('tenant_settings')
    .insert({ tenant_id: tenantId, key, value: JSON.stringify(value), updated_at: at })
    .onConflict(['tenant_id', 'key'])
    .merge({ value: JSON.stringify(value), updated_at: at });
}

/** The key SMS credits are kept under: a JSON number. */
export const smsCreditsKey = 'sms_credits';

/** A stored credit value that is not a number (hand-edited) counts as 0. */
const creditsOf = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

export async function readSmsCredits(db: Queryable, tenantId: string): Promise<number> {
  const row = (await db('tenant_settings').where({ tenant_id: tenantId, key: smsCreditsKey }).first('value')) as { value: unknown } | undefined;
  return creditsOf(row?.value);
}

/**
 * Adds credits in one statement (insert, or add to the stored number) and answers the new total:
 * two operators adding at once both count, which a read-then-write would not guarantee.
 */
export async function addSmsCredits(db: Queryable, tenantId: string, credits: number, at: Date): Promise<number> {
  const result = await db.raw(
    `insert into tenant_settings (tenant_id, key, value, updated_at)
     values (?, ?, to_jsonb(?::bigint), ?)
     on conflict (tenant_id, key) do update set
       value = to_jsonb(case when jsonb_typeof(tenant_settings.value) = 'number' then tenant_settings.value::numeric else 0 end
                        + excluded.value::numeric),
       updated_at = excluded.updated_at
     returning value`,
    [tenantId, smsCreditsKey, credits, at],
  );
  return creditsOf((result.rows as { value: unknown }[])[0]?.value);
}
