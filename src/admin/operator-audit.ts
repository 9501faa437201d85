import type { Queryable } from '../accounts/accounts.repository.ts';
import { recordAudit } from '../audit/audit.ts';
import type { Context } from '../context.ts';
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
  | 'operator.account.email_change_finished'
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

/**
 * An operator action that only takes access away (a sign-out), recorded after it is made and
 * with what it ended: a row written first could carry no counts, and a store failing after it
 * would leave a row (and a line in the person's activity) saying it happened when it did not.
 * The gap this order leaves, a change with no row, is closed as far as it can be: a failure of
 * the change or of its row is logged as an error naming the operator, the account, `logged` and
 * how far it got, then rethrown (500 or 503), so the operator retries, which ends what is left
 * and writes the row.
 */
export async function recordAfterChange<T>(
  ctx: Pick<Context, 'db' | 'logger' | 'now'>,
  operator: Operator,
  action: {
    action: OperatorAction;
    targetAccountId: string;
    /** The row's details, from what the change did. */
    details: (result: T) => Record<string, unknown>;
    /** What a failure's log line adds: what was being ended, and what was (undefined: the change failed). */
    logged: (result: T | undefined) => Record<string, unknown>;
    /** The log line when the change failed, perhaps part way, and when only its row did. */
    failed: string;
    unrecorded: string;
  },
  change: () => Promise<T>,
): Promise<T> {
  let made: { result: T } | undefined;
  try {
    made = { result: await change() };
    await recordOperatorAction(ctx.db, operator, { action: action.action, target_account_id: action.targetAccountId, details: action.details(made.result) }, ctx.now());
    return made.result;
  } catch (err) {
    ctx.logger.error(
      { err, operator_id: operator.account_id, role: operator.role, target_account_id: action.targetAccountId, ...action.logged(made?.result) },
      `${action.action}: ${made ? action.unrecorded : action.failed}`,
    );
    throw err;
  }
}
