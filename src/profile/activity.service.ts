import type { Context } from '../context.ts';
import { summarizeActivity, tenantIdsOf, type ActivityEntry, type AuditRow } from './activity-summary.ts';

export const activityLimit = 20;

/**
 * GET /api/accounts/activity: the last 20 audit events about the person — what happened to their
 * account (sign-ins, failed attempts, changes, operators' actions on it) and what they did that
 * names no other account. What an operator did to others is not their activity.
 */
export async function listActivity(ctx: Pick<Context, 'db'>, accountId: string): Promise<{ events: ActivityEntry[] }> {
  const rows = (await ctx
    .db('audit_events')
    .where((q) => q.where({ target_account_id: accountId }).orWhere((own) => own.where({ actor_id: accountId }).whereNull('target_account_id')))
    .orderBy([
      { column: 'at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(activityLimit)
    .select('id', 'at', 'action', 'actor_id', 'target_account_id', 'tenant_id', 'details')) as AuditRow[];
  const tenantIds = tenantIdsOf(rows);
  const names = new Map<string, string>();
  if (tenantIds.length > 0) {
    for (const tenant of (await ctx.db('tenants').whereIn('id', tenantIds).select('id', 'name')) as { id: string; name: string }[]) {
      names.set(tenant.id, tenant.name);
    }
  }
  return { events: rows.map((row) => summarizeActivity(row, accountId, names)) };
}
