import type { Queryable } from '../../accounts/accounts.repository.ts';

export interface AuditFilter {
  actor?: string | undefined;
  target?: string | undefined;
  action?: string | undefined;
  since?: Date | undefined;
  limit: number;
}

export interface AuditRow {
  id: string;
  at: Date;
  action: string;
  actor_id: string | null;
  actor_email: string | null;
  target_account_id: string | null;
  target_email: string | null;
  tenant_id: string | null;
  ip: string | null;
  user_agent: string | null;
  details: Record<string, unknown>;
}

/** Newest first; every filter is an indexed column of audit_events. */
export async function findAuditEvents(db: Queryable, filter: AuditFilter): Promise<AuditRow[]> {
  const query = db('audit_events as e')
    .leftJoin('accounts as actor', 'actor.id', 'e.actor_id')
    .leftJoin('accounts as target', 'target.id', 'e.target_account_id')
    .orderBy([{ column: 'e.at', order: 'desc' }, { column: 'e.id', order: 'desc' }])
    .limit(filter.limit)
    .select(
      db.raw('e.id::text as id'),
      'e.at',
      'e.action',
      'e.actor_id',
      'actor.email as actor_email',
      'e.target_account_id',
      'target.email as target_email',
      'e.tenant_id',
      'e.ip',
      'e.user_agent',
      'e.details',
    );
  if (filter.actor) query.where('e.actor_id', filter.actor);
  if (filter.target) query.where('e.target_account_id', filter.target);
  if (filter.action) query.where('e.action', filter.action);
  if (filter.since) query.where('e.at', '>=', filter.since);
  return (await query) as AuditRow[];
}
