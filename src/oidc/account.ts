import type { Db } from '../db/knex.ts';

interface AccountRow {
  id: string;
  email: string;
  name: string;
  image: string | null;
  locale: string;
  email_verified: boolean;
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * oidc-provider's findAccount: `sub` is the account id, stable across email changes. Claims are
 * filtered by scope by the provider; `tenants` is only released with the `tenants` scope.
 */
export function createFindAccount(db: Db) {
  return async (_ctx: unknown, sub: string) => {
    if (!uuid.test(sub)) return undefined;
    const account: AccountRow | undefined = await db('accounts')
      .where({ id: sub })
      .first('id', 'email', 'name', 'image', 'locale', 'email_verified');
    if (!account) return undefined;
    return {
      accountId: account.id,
      async claims(_use: string, scope: string) {
        const claims: Record<string, unknown> = {
          sub: account.id,
          email: account.email,
          email_verified: account.email_verified,
          name: account.name,
          locale: account.locale,
          picture: account.image ?? undefined,
        };
        if (scope.split(' ').includes('tenants')) {
          claims.tenants = await db('tenant_access as a')
            .join('tenants as t', 't.id', 'a.tenant_id')
            .where({ 'a.account_id': account.id, 'a.active': true })
            .whereNull('t.inactive_at')
            .orderBy('t.name')
            .select('t.id', 't.slug', 't.name', 'a.role');
        }
        return claims;
      },
    };
  };
}
