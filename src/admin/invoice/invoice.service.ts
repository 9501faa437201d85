import type { Context } from '../../context.ts';
import { functionsOf, integrationsOf, type TenantFunctions, type TenantIntegrations } from '../../tenants/tenant-settings.ts';
import { listActiveTenants, settingsByTenant } from '../../tenants/tenants.repository.ts';
import { invoiceFee } from './invoice-fee.ts';

/** The Invoice row of the spec, with the fee computed here so the console and finance agree. */
export interface InvoiceRow {
  name: string;
  tenant_id: string;
  user_count: number;
  functions: TenantFunctions;
  integrations: TenantIntegrations;
  fee: number;
}

/** One row per active tenant, by name; two queries whatever the number of tenants. */
export async function buildInvoice(ctx: Pick<Context, 'db' | 'now'>): Promise<InvoiceRow[]> {
  const tenants = await listActiveTenants(ctx.db, ctx.now());
  const settings = await settingsByTenant(
    ctx.db,
    tenants.map((t) => t.id),
    ['system_sms', 'system_cronofy', 'integrations'],
  );
  return tenants.map((tenant) => {
    const own = settings.get(tenant.id) ?? new Map<string, unknown>();
    return {
      name: tenant.name,
      tenant_id: tenant.id,
      user_count: tenant.user_count,
      functions: functionsOf(own),
      integrations: integrationsOf(own),
      fee: invoiceFee(tenant.user_count),
    };
  });
}
