import type { Queryable } from '../../accounts/accounts.repository.ts';

export interface AuditFilter {
  actor?: string | undefined;
  target?: string | undefined;
  action?: string | undefined;
  since?: Date | undefined;
  /** An event's id: only events after it in the listing's order (older ones) are answered. */
  before?: string | undefined;
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

export async function auditEventExists(db: Queryable, id: string): Promise<boolean> {
  return (await db('audit_events').where({ id }).first(db.raw('1 as found'))) !== undefined;
}

/**
 * Newest first, by (at, id): `at` is the event's own time, which an insert may give out of id
 * order, so id only breaks ties. Every filter is an indexed column of audit_events.
 *
 * `before` pages by keyset: the events that sort after the named one. Its (at, id) is read in the
 * same statement, so the comparison uses `at` at PostgreSQL's full microsecond precision (a JS
 * Date would round it to milliseconds and skip or repeat events of the same millisecond), and
 * events written meanwhile neither shift nor repeat a page the way an offset would.
 */
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
  if (filter.before) query.whereRaw('(e.at, e.id) < (select c.at, c.id from audit_events c where c.id = ?)', [filter.before]);
  return (await query) as AuditRow[];
}
