import type { ImpersonatedGrant } from '../admin/impersonation/impersonation.store.ts';
import { isImpersonationToken, type ImpersonationMarks } from '../admin/impersonation/impersonation.oidc.ts';
import type { Db } from '../db/knex.ts';
import { tenantActiveAt } from '../tenants/tenant-activity.ts';

interface AccountRow {
  id: string;
  email: string;
  name: string;
  image: string | null;
  locale: string | null;
  email_verified: boolean;
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * oidc-provider's findAccount: `sub` is the account id, stable across email changes. Claims are
 * filtered by scope by the provider; `tenants` is only released with the `tenants` scope.
 */
/**
 * How long an account row is reused across token requests. oidc-provider looks the account up on
 * every code exchange, refresh and userinfo call; a deleted account stops getting tokens within
 * this time (its grants are revoked separately).
 */
export const accountCacheMs = 5_000;
const accountCacheSize = 10_000;

/**
 * `impersonationOf` answers the impersonation a grant was made by, if any: its tokens then carry
 * `act` (RFC 8693) naming the operator, and `tenants` holds only the impersonated tenant.
 */
export function createFindAccount(
  db: Db,
  now: () => number = Date.now,
  impersonationOf: (token: ImpersonationMarks) => Promise<ImpersonatedGrant | null> = async () => null,
) {
  const cache = new Map<string, { row: AccountRow; until: number }>();
  const load = async (sub: string): Promise<AccountRow | undefined> => {
    const hit = cache.get(sub);
    if (hit && hit.until > now()) return hit.row;
    const row: AccountRow | undefined = await db('accounts')
      .where({ id: sub })
      .first('id', 'email', 'name', 'image', 'locale', 'email_verified');
    // Only existing accounts are cached, and the map is bounded, so made-up subjects cannot grow it.
    if (row) {
      if (cache.size >= accountCacheSize) cache.clear();
      cache.set(sub, { row, until: now() + accountCacheMs });
    } else cache.delete(sub);
    return row;
  };
  return async (_ctx: unknown, sub: string, token?: ImpersonationMarks) => {
    if (!uuid.test(sub)) return undefined;
    const account = await load(sub);
    if (!account) return undefined;
    // Looked up per token, never cached with the account row: it belongs to the grant. A token an
    // impersonation made whose record is gone, or whose operator lost the admin role, is refused.
    const impersonation = token ? await impersonationOf(token) : null;
    if (token && !impersonation && isImpersonationToken(token)) return undefined;
    return {
      accountId: account.id,
      async claims(_use: string, scope: string) {
        const claims: Record<string, unknown> = {
          sub: account.id,
          email: account.email,
          email_verified: account.email_verified,
          name: account.name,
          // Omitted, not null, when never chosen (OpenID Connect Core 5.3.2).
          locale: account.locale ?? undefined,
          picture: account.image ?? undefined,
        };
        if (impersonation) claims.act = impersonation.act;
        if (scope.split(' ').includes('tenants')) {
          claims.tenants = await db('tenant_access as a')
            .join('tenants as t', 't.id', 'a.tenant_id')
            .where({ 'a.account_id': account.id, 'a.active': true })
            .where(tenantActiveAt(new Date(now())))
            .modify((query) => {
              if (impersonation) query.where('t.id', impersonation.tenant_id);
            })
            .orderBy('t.name')
            .select('t.id', 't.slug', 't.name', 'a.role');
        }
        return claims;
      },
    };
  };
}
