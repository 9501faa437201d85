import type { Queryable } from '../../accounts/accounts.repository.ts';
import { tenantActiveAt } from '../../tenants/tenant-activity.ts';

export interface NotificationInput {
  message: string;
  admins_only: boolean;
  /** Tenant ids; empty means every tenant. */
  tenants: string[];
  popup: boolean;
  new_functionality: boolean;
}

export interface NotificationRow extends NotificationInput {
  id: string;
  created_by: string | null;
  created_at: Date;
}

const columns = ['id', 'message', 'admins_only', 'tenants', 'popup', 'new_functionality', 'created_by', 'created_at'] as const;

export async function insertNotification(db: Queryable, input: NotificationInput & { created_by: string; created_at: Date }): Promise<string> {
  const [row] = (await db('notifications')
    .insert({ ...input, tenants: JSON.stringify(input.tenants) })
    .returning('id')) as { id: string }[];
  return row!.id;
}

export async function listNotifications(db: Queryable, limit: number): Promise<NotificationRow[]> {
  return (await db('notifications').orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id' }]).limit(limit).select(...columns)) as NotificationRow[];
}

/** Notifications for one tenant (naming it, or naming none: for all), newest first. */
export async function notificationsForTenant(
  db: Queryable,
  tenantId: string,
  options: { includeAdminsOnly: boolean; limit: number },
): Promise<NotificationRow[]> {
  const query = db('notifications')
    .where((q) => q.whereRaw('tenants @> ?::jsonb', [JSON.stringify([tenantId])]).orWhereRaw("tenants = '[]'::jsonb"))
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id' }])
    .limit(options.limit)
    .select(...columns);
  if (!options.includeAdminsOnly) query.where({ admins_only: false });
  return (await query) as NotificationRow[];
}

/** The ids among `ids` that name no tenant. */
export async function unknownTenantIds(db: Queryable, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const found = new Set(((await db('tenants').whereIn('id', ids).select('id')) as { id: string }[]).map((r) => r.id));
  return ids.filter((id) => !found.has(id));
}

/** The caller's access to a tenant that is active (access switched on, tenant not deactivated). */
export async function activeTenantRole(db: Queryable, accountId: string, tenantId: string, now: Date): Promise<string | null> {
  const row = (await db('tenant_access as a')
    .join('tenants as t', 't.id', 'a.tenant_id')
    .where({ 'a.account_id': accountId, 'a.tenant_id': tenantId, 'a.active': true })
    .where(tenantActiveAt(now))
    .first('a.role')) as { role: string } | undefined;
  return row?.role ?? null;
}
