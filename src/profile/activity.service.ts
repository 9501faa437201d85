import type { Context } from '../context.ts';
import { summarizeActivity, tenantIdsOf, type ActivityEntry, type AuditRow } from './activity-summary.ts';

export const activityLimit = 20;

/**
 * What the person did naming no account. An operator's own work names none either (account
 * searches, tenant changes): it is not their activity, and an index leaves it out (migration
 * 011). The condition is written as the index's, so PostgreSQL can tell the index answers it.
 */
export function ownActivity(db: Context['db'], accountId: string) {
  return db('audit_events').where({ actor_id: accountId }).whereRaw("target_account_id is null and action not like 'operator.%'");
}

/**
 * GET /api/accounts/activity: the last 20 audit events about the person — what happened to their
 * account (sign-ins, failed attempts, changes, operators' actions on it) and what they did that
 * names no other account. What an operator did to others, or as an operator, is not their activity.
 */
export async function listActivity(ctx: Pick<Context, 'db'>, accountId: string): Promise<{ events: ActivityEntry[] }> {
  const newestFirst = [
    { column: 'at', order: 'desc' },
    { column: 'id', order: 'desc' },
  ] as const;
  const columns = ['id', 'at', 'action', 'actor_id', 'target_account_id', 'tenant_id', 'details'];
  // Two disjoint halves, each the newest 20 read off its own index ((target_account_id, at) and
  // (actor_id, at)), then the newest 20 of those 40. One query with `target = X or (actor = X and
  // target is null)` made PostgreSQL fetch and sort every event about the person, and anyone can
  // add those (a failed sign-in naming them is one), so the page would slow as others chose.
  // An operator looking up the account's address or pending change (operator.account.viewed) is
  // for the audit log: the person sees what was done to the account, and the tokens page's view
  // already shows as "Support viewed your active sessions".
  const about = ctx
    .db('audit_events')
    .where({ target_account_id: accountId })
    .whereNot({ action: 'operator.account.viewed' })
    .orderBy([...newestFirst])
    .limit(activityLimit)
    .select(columns);
  const own = ownActivity(ctx.db, accountId).orderBy([...newestFirst]).limit(activityLimit).select(columns);
  const rows = (await ctx.db
    .from(ctx.db.unionAll([about, own], true).as('e'))
    .orderBy([...newestFirst])
    .limit(activityLimit)
    .select(columns)) as AuditRow[];
  const tenantIds = tenantIdsOf(rows);
  const names = new Map<string, string>();
  if (tenantIds.length > 0) {
    for (const tenant of (await ctx.db('tenants').whereIn('id', tenantIds).select('id', 'name')) as { id: string; name: string }[]) {
      names.set(tenant.id, tenant.name);
    }
  }
  return { events: rows.map((row) => summarizeActivity(row, accountId, names)) };
}
