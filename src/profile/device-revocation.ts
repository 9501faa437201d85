import { recordAudit } from '../audit/audit.ts';
import type { Context } from '../context.ts';
import { listRememberedDevices, revokeAllRememberedDevices } from '../login/remembered-device.ts';

/** Why every remembered device of an account was forgotten at once: `devices.revoked_all`'s reason. */
export type DevicesRevokedReason = 'totp_activated' | 'totp_replaced' | 'totp_removed' | 'operator_totp_deleted' | 'signed_out_others';

/**
 * Forgets every browser remembered for the account's TOTP step (but `keep`, a public device id,
 * when given) and audits `devices.revoked_all`
 * with how many there were. The count is of the live devices just before: one remembered in the
 * instant between is forgotten too but not counted. No row when there was none to forget: an
 * authenticator's first activation would otherwise show "remembered devices forgotten" in the
 * person's activity for devices that never existed.
 */
export async function forgetRememberedDevices(
  ctx: Pick<Context, 'db' | 'store' | 'config' | 'now'>,
  accountId: string,
  audit: { reason: DevicesRevokedReason; actorId: string; ip: string | null; userAgent: string | null },
  keep?: string,
): Promise<number> {
  const count = (await listRememberedDevices(ctx, accountId, undefined)).filter((device) => device.id !== keep).length;
  await revokeAllRememberedDevices(ctx, accountId, keep);
  if (count === 0) return 0;
  await recordAudit(ctx.db, {
    action: 'devices.revoked_all',
    actor_id: audit.actorId,
    target_account_id: accountId,
    ip: audit.ip,
    user_agent: audit.userAgent,
    details: { count, reason: audit.reason },
    at: ctx.now(),
  });
  return count;
}
