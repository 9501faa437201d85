import type { Context } from '../../context.ts';
import { AppError, errors } from '../../http/app-error.ts';
import { functionsOf, isSmsSettingKey, smsSenderOf, type TenantFunctions } from '../../tenants/tenant-settings.ts';
import {
  addSmsCredits,
  findTenant,
  insertTenant,
  listSettings,
  listTenants,
  listTenantUsers,
  readSmsCredits,
  searchTenants,
  SlugTakenError,
  tenantExists,
  upsertSetting,
  type SettingRow,
  type TenantRow,
  type TenantUser,
} from '../../tenants/tenants.repository.ts';
import { spendSearch } from '../accounts/action-limits.ts';
import { recordOperatorAction } from '../operator-audit.ts';
import type { Operator } from '../operator-guard.ts';

export const tenantErrors = {
  slugTaken: () => new AppError('tenant/slug-taken', 409, 'A tenant with this slug already exists'),
};

export interface TenantDetail extends TenantRow {
  functions: TenantFunctions;
  /** Every setting, raw. */
  settings: SettingRow[];
  /** The SMS settings (`info`, `system_sms`, `sms_sign`). */
  sms_settings: SettingRow[];
  sms_credits: number;
  /** The sender of the `info` setting, or null while none is set. */
  sms_sender: string | null;
}

type TenantContext = Pick<Context, 'db' | 'now'>;
/** For the reads an operator's search budget pays for (action-limits.ts). */
type BudgetedContext = TenantContext & Pick<Context, 'store' | 'config'>;

async function assertTenant(ctx: TenantContext, tenantId: string): Promise<void> {
  if (!(await tenantExists(ctx.db, tenantId))) throw errors.notFound();
}

/** Most tenants a search answers. */
export const tenantSearchLimit = 50;

/**
 * Every tenant by name: there are at most a few hundred, and the console's list is sorted by name.
 * The list and the search each take a point of the operator's search budget (action-limits.ts),
 * so they cannot be run in a loop; not audited: they answer tenants' names and slugs, the
 * platform's customers, not people.
 */
export async function allTenants(ctx: BudgetedContext, operator: Operator): Promise<TenantRow[]> {
  await spendSearch(ctx, operator);
  return listTenants(ctx.db);
}

export async function findTenants(ctx: BudgetedContext, operator: Operator, term: string): Promise<TenantRow[]> {
  await spendSearch(ctx, operator);
  return searchTenants(ctx.db, term, tenantSearchLimit);
}

/**
 * Most users GET /api/tenants/:id/users answers: a tenant can have tens of thousands, and the
 * console finds the others by searching (`q`). The portal's TENANT_USERS_LIMIT is this number.
 */
export const tenantUsersLimit = 200;

/**
 * A tenant's users (with `term`, those whose name or email contains it): a read of up to 200
 * people's names, emails and roles, so, as an account search, it takes a point of the operator's
 * search budget (429 before anything is read; an unknown tenant's 404 costs nothing) and is
 * audited, as `operator.tenant_users.listed` with the tenant, the term and how many users it
 * answered, never which.
 */
export async function tenantUsers(ctx: BudgetedContext, operator: Operator, tenantId: string, term?: string): Promise<TenantUser[]> {
  await assertTenant(ctx, tenantId);
  await spendSearch(ctx, operator);
  const users = await listTenantUsers(ctx.db, tenantId, { term, limit: tenantUsersLimit });
  await recordOperatorAction(
    ctx.db,
    operator,
    { action: 'operator.tenant_users.listed', tenant_id: tenantId, details: { query: term ?? null, count: users.length } },
    ctx.now(),
  );
  return users;
}

export async function tenantDetail(ctx: TenantContext, tenantId: string): Promise<TenantDetail> {
  const tenant = await findTenant(ctx.db, tenantId);
  if (!tenant) throw errors.notFound();
  const settings = await listSettings(ctx.db, tenantId);
  const byKey = new Map(settings.map((s) => [s.key, s.value]));
  return {
    ...tenant,
    functions: functionsOf(byKey),
    settings,
    sms_settings: settings.filter((s) => isSmsSettingKey(s.key)),
    sms_credits: await readSmsCredits(ctx.db, tenantId),
    sms_sender: smsSenderOf(byKey),
  };
}

export async function createTenant(
  ctx: TenantContext,
  operator: Operator,
  input: { name: string; slug: string; url?: string | undefined },
): Promise<{ id: string }> {
  const at = ctx.now();
  try {
    return await ctx.db.transaction(async (trx) => {
      const id = await insertTenant(trx, { name: input.name, slug: input.slug, url: input.url ?? null, at });
      await recordOperatorAction(trx, operator, { action: 'operator.tenant.created', tenant_id: id, details: { name: input.name, slug: input.slug } }, at);
      return { id };
    });
  } catch (error) {
    if (error instanceof SlugTakenError) throw tenantErrors.slugTaken();
    throw error;
  }
}

export async function tenantSettings(ctx: TenantContext, tenantId: string, keys?: readonly string[]): Promise<SettingRow[]> {
  await assertTenant(ctx, tenantId);
  return listSettings(ctx.db, tenantId, keys);
}

/**
 * Sets one setting (already validated against its known shape). The audit event keeps the old and
 * new value: settings hold configuration, never secrets. An SMS key is an SMS setting whichever
 * route set it, so the log names it as one either way.
 */
export async function setTenantSetting(
  ctx: TenantContext,
  operator: Operator,
  input: { tenantId: string; key: string; value: unknown },
): Promise<void> {
  await assertTenant(ctx, input.tenantId);
  const at = ctx.now();
  await ctx.db.transaction(async (trx) => {
    const previous = (await trx('tenant_settings').where({ tenant_id: input.tenantId, key: input.key }).forUpdate().first('value')) as
      | { value: unknown }
      | undefined;
    await upsertSetting(trx, input.tenantId, input.key, input.value, at);
    await recordOperatorAction(
      trx,
      operator,
      {
        action: isSmsSettingKey(input.key) ? 'operator.sms_setting.set' : 'operator.tenant_setting.set',
        tenant_id: input.tenantId,
        details: { key: input.key, value: input.value, previous: previous?.value ?? null },
      },
      at,
    );
  });
}

export async function smsCredits(ctx: TenantContext, tenantId: string): Promise<number> {
  await assertTenant(ctx, tenantId);
  return readSmsCredits(ctx.db, tenantId);
}

export async function addCredits(ctx: TenantContext, operator: Operator, tenantId: string, credits: number): Promise<number> {
  await assertTenant(ctx, tenantId);
  const at = ctx.now();
  return ctx.db.transaction(async (trx) => {
    const total = await addSmsCredits(trx, tenantId, credits, at);
    await recordOperatorAction(trx, operator, { action: 'operator.sms_credits.added', tenant_id: tenantId, details: { added: credits, total } }, at);
    return total;
  });
}
