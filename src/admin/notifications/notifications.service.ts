import type { Context } from '../../context.ts';
import { errors } from '../../http/app-error.ts';
import { ValidationError } from '../../http/validate.ts';
import { spendNotification } from '../accounts/action-limits.ts';
import { recordOperatorAction } from '../operator-audit.ts';
import type { Operator } from '../operator-guard.ts';
import {
  activeTenantRole,
  insertNotification,
  listNotifications,
  notificationsForTenant,
  unknownTenantIds,
  type NotificationInput,
  type NotificationRow,
} from './notifications.repository.ts';

/** How many notifications a list answers: the newest are the ones anybody reads. */
export const notificationsLimit = 100;

/** What a tenant app sees of a notification: not who wrote it, nor which other tenants got it. */
export interface TenantNotification {
  id: string;
  message: string;
  admins_only: boolean;
  popup: boolean;
  new_functionality: boolean;
  created_at: Date;
}

export async function sendNotification(ctx: Context, operator: Operator, input: NotificationInput): Promise<{ id: string }> {
  const tenants = [...new Set(input.tenants)];
  const unknown = await unknownTenantIds(ctx.db, tenants);
  if (unknown.length > 0) {
    throw new ValidationError(
      unknown.map((id) => ({ code: 'custom', path: ['tenants', tenants.indexOf(id)], message: `Unknown tenant ${id}`, input: id })),
    );
  }
  await spendNotification(ctx, operator);
  const at = ctx.now();
  return ctx.db.transaction(async (trx) => {
    const id = await insertNotification(trx, { ...input, tenants, created_by: operator.account_id, created_at: at });
    await recordOperatorAction(
      trx,
      operator,
      { action: 'operator.notification.sent', details: { notification_id: id, tenants, admins_only: input.admins_only, popup: input.popup } },
      at,
    );
    return { id };
  });
}

export async function recentNotifications(ctx: Context): Promise<NotificationRow[]> {
  return listNotifications(ctx.db, notificationsLimit);
}

/**
 * For a tenant's app, on behalf of a signed-in person: only someone with active access to the
 * tenant reads its notifications, and `admins_only` ones only reach the tenant's admins.
 */
export async function notificationsForMember(ctx: Context, accountId: string, tenantId: string): Promise<TenantNotification[]> {
  const role = await activeTenantRole(ctx.db, accountId, tenantId, ctx.now());
  if (!role) throw errors.forbidden();
  const rows = await notificationsForTenant(ctx.db, tenantId, { includeAdminsOnly: role === 'admin', limit: notificationsLimit });
  return rows.map(({ id, message, admins_only, popup, new_functionality, created_at }) => ({
    id,
    message,
    admins_only,
    popup,
    new_functionality,
    created_at,
  }));
}
