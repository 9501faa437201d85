import type { Queryable } from '../../accounts/accounts.repository.ts';
import { isTenantActive } from '../../tenants/tenant-activity.ts';

export interface ImpersonationTenant {
  id: string;
  name: string;
  slug: string;
  url: string | null;
  inactive_at: Date | null;
}

export interface TenantMember {
  account_id: string;
  email: string;
  name: string;
  role: string;
  active: boolean;
}

export async function findTenant(db: Queryable, tenantId: string): Promise<ImpersonationTenant | null> {
  return ((await db('tenants').where({ id: tenantId }).first('id', 'name', 'slug', 'url', 'inactive_at')) as ImpersonationTenant | undefined) ?? null;
}

export async function accountExists(db: Queryable, accountId: string): Promise<boolean> {
  return (await db('accounts').where({ id: accountId }).first('id')) !== undefined;
}

/** The account's access to the tenant, active or not; null when it has none. */
export async function findMember(db: Queryable, tenantId: string, accountId: string): Promise<TenantMember | null> {
  return ((await db('tenant_access as a')
    .join('accounts as ac', 'ac.id', 'a.account_id')
    .where({ 'a.tenant_id': tenantId, 'a.account_id': accountId })
    .first('ac.id as account_id', 'ac.email', 'ac.name', 'a.role', 'a.active')) as TenantMember | undefined) ?? null;
}

/** "Login as admin" signs in as the tenant's first active admin, by name as the console sorts people. */
export async function firstActiveAdmin(db: Queryable, tenantId: string): Promise<TenantMember | null> {
  return ((await db('tenant_access as a')
    .join('accounts as ac', 'ac.id', 'a.account_id')
    .where({ 'a.tenant_id': tenantId, 'a.role': 'admin', 'a.active': true })
    // Operators are never impersonated (impersonation.service.ts): the pick passes over them.
    .whereNotExists((q) => q.select('o.account_id').from('operator_roles as o').whereRaw('o.account_id = ac.id'))
    .orderByRaw('lower(ac.name), ac.name, ac.email')
    .first('ac.id as account_id', 'ac.email', 'ac.name', 'a.role', 'a.active')) as TenantMember | undefined) ?? null;
}

/** The one rule of active access: the access is switched on and the tenant is active (tenant-activity.ts). */
export function accessIsActive(tenant: Pick<ImpersonationTenant, 'inactive_at'>, member: Pick<TenantMember, 'active'> | null, now: Date): boolean {
  return member !== null && member.active && isTenantActive(tenant.inactive_at, now);
}

interface ClientMetadata {
  client_id: string;
  redirect_uris?: string[];
  initiate_login_uri?: string;
}

/** Clients are few (registered by operators): all of them are read and matched here. */
export async function listClientMetadata(db: Queryable): Promise<ClientMetadata[]> {
  const rows = (await db('oidc_clients').orderBy('client_id').select('metadata')) as { metadata: unknown }[];
  return rows.map((row) => (typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata) as ClientMetadata);
}
