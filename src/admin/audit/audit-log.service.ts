import type { Queryable } from '../../accounts/accounts.repository.ts';
import { ValidationError } from '../../http/validate.ts';
import { auditEventExists, findAuditEvents, type AuditFilter, type AuditRow } from './audit-log.repository.ts';

/**
 * GET /api/audit. A `before` naming no event is refused rather than answered with an empty page,
 * which would read as the end of the log.
 */
export async function listAuditEvents(db: Queryable, filter: AuditFilter): Promise<AuditRow[]> {
  if (filter.before !== undefined && !(await auditEventExists(db, filter.before))) {
    throw new ValidationError([{ code: 'custom', path: ['before'], message: 'No audit event has this id', input: filter.before }]);
  }
  return findAuditEvents(db, filter);
}
