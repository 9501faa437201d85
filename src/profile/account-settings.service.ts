import { recordAudit } from '../audit/audit.ts';
import type { Context } from '../context.ts';
import { errors } from '../http/app-error.ts';
import type { PortalSessionWithId } from '../session/portal-session.ts';
import type { SettingInput } from './profile.schemas.ts';
import type { ClientInfo } from './two-factor.service.ts';

/**
 * POST /api/accounts/settings: the person's name or language (the portal applies the saved
 * locale on load; mails without an Accept-Language use it). Neither touches how the person signs
 * in, so no recent sign-in is needed. The audit keeps the locale's value but not the name: the
 * name is already on the account row.
 */
export async function saveSetting(ctx: Context, session: PortalSessionWithId, input: SettingInput, info: ClientInfo): Promise<SettingInput> {
  const now = ctx.now();
  await ctx.db.transaction(async (trx) => {
    const updated = await trx('accounts').where({ id: session.account_id }).update({ [input.key]: input.value, updated_at: now });
    if (updated !== 1) throw errors.unauthorized();
    await recordAudit(trx, {
      action: 'account.setting.changed',
      actor_id: session.account_id,
      target_account_id: session.account_id,
      ip: info.ip,
      user_agent: info.userAgent,
      details: input.key === 'locale' ? { key: input.key, value: input.value } : { key: input.key },
      at: now,
    });
  });
  return input;
}
