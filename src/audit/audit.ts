import type { Queryable } from '../accounts/accounts.repository.ts';
import { countAuditAction } from '../observability/metrics.ts';

/** The audit actions written by Nyckel. Add new ones here so the list stays greppable. */
export type AuditAction =
  | 'login.succeeded'
  | 'login.failed'
  | 'login.locked'
  | 'password_reset.requested'
  | 'password_reset.completed'
  | 'password.created'
  | 'totp.activated'
  | 'totp.merged'
  | 'credential.removed'
  | 'upstream.linked'
  | 'passkey.registered'
  | 'passkey.removed'
  | 'passkey.clone_suspected'
  | 'device.remembered'
  | 'device.revoked'
  | 'devices.revoked_all'
  | 'account.setting.changed'
  | 'account.email_changed'
  | 'account.email_change_cancelled'
  | 'account.email_change_refused'
  | 'password.changed'
  | 'password.setup_link.sent'
  | 'session.revoked'
  | 'sessions.revoked_others'
  | 'grant.revoked'
  | 'operator.account.signed_out'
  | 'operator.account.session_ended'
  | 'operator.account.email_change_requested'
  | 'operator.account.email_change_withdrawn'
  | 'operator.account.email_change_finished'
  | 'operator.account.unlocked'
  | 'operator.account.viewed'
  | 'operator.accounts.searched'
  | 'operator.credential.deleted'
  | 'operator.impersonation.started'
  | 'operator.impersonation.used'
  | 'operator.notification.sent'
  | 'operator.password_reset.sent'
  | 'operator.password_resets.viewed'
  | 'operator.role.granted'
  | 'operator.role.revoked'
  | 'operator.sms_credits.added'
  | 'operator.sms_setting.set'
  | 'operator.tenant.created'
  | 'operator.tenant_users.listed'
  | 'operator.tenant_setting.set'
  | 'operator.tokens.viewed'
  | (string & {});

export interface AuditEvent {
  action: AuditAction;
  actor_id?: string | null;
  target_account_id?: string | null;
  tenant_id?: string | null;
  ip?: string | null;
  user_agent?: string | null;
  /**
   * Free-form context (method, reason, email). Never passwords, codes, tokens or hashes of them:
   * the audit table is read by operators.
   */
  details?: Record<string, unknown>;
  /** Defaults to the database's now(); pass ctx.now() to keep tests on the injected clock. */
  at?: Date;
}

/** Appends one row to audit_events. Pass the open transaction when there is one. */
export async function recordAudit(db: Queryable, event: AuditEvent): Promise<void> {
  await db('audit_events').insert({
    action: event.action,
    actor_id: event.actor_id ?? null,
    target_account_id: event.target_account_id ?? null,
    tenant_id: event.tenant_id ?? null,
    ip: event.ip ?? null,
    user_agent: event.user_agent?.slice(0, 512) ?? null,
    details: JSON.stringify(event.details ?? {}),
    ...(event.at ? { at: event.at } : {}),
  });
  countAuditAction(event.action, event.details);
}
