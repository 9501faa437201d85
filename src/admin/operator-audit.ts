import type { Queryable } from '../accounts/accounts.repository.ts';
import { recordAudit } from '../audit/audit.ts';
import type { Operator } from './operator-guard.ts';

/** The operator actions the audit log records; every change and every view of secrets. */
export type OperatorAction =
  | 'operator.password_reset.sent'
  | 'operator.password_resets.viewed'
  | 'operator.accounts.searched'
  | 'operator.account.viewed'
  | 'operator.tenant_users.listed'
  | 'operator.credential.deleted'
  | 'operator.account.unlocked'
  | 'operator.account.signed_out'
  | 'operator.account.session_ended'
  | 'operator.account.email_change_requested'
  | 'operator.account.email_change_withdrawn'
  | 'operator.tokens.viewed'
  | 'operator.tenant.created'
  | 'operator.tenant_setting.set'
  | 'operator.sms_setting.set'
  | 'operator.sms_credits.added'
  | 'operator.notification.sent'
  | 'operator.role.granted'
  | 'operator.role.revoked';

export interface OperatorEvent {
  action: OperatorAction;
  target_account_id?: string | null;
  tenant_id?: string | null;
  /** Never tokens, links or secrets: operators read this table. */
  details?: Record<string, unknown>;
}

/** One audit row naming the operator, where they called from, and what they did to whom. */
export async function recordOperatorAction(db: Queryable, operator: Operator, event: OperatorEvent, at: Date): Promise<void> {
  await recordAudit(db, {
    action: event.action,
    actor_id: operator.account_id,
    target_account_id: event.target_account_id ?? null,
    tenant_id: event.tenant_id ?? null,
    ip: operator.ip,
    user_agent: operator.user_agent,
    details: { role: operator.role, ...event.details },
    at,
  });
}
