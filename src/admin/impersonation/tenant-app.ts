import type { Queryable } from '../../accounts/accounts.repository.ts';
import { listClientMetadata, type ImpersonationTenant } from './impersonation.repository.ts';

export interface TenantApp {
  client_ids: string[];
  entry_url: string;
}

const originOf = (uri: string): string | null => {
  const origin = URL.parse(uri)?.origin;
  return origin && origin !== 'null' ? origin : null;
};

/**
 * The tenant's app: the clients whose redirect URIs share the origin of the tenant's URL (one app
 * serves many tenants, each under its own URL). Nyckel cannot start the authorization request
 * itself: the app holds the PKCE verifier and the state. So the browser is sent where the app
 * starts its own sign-in: the client's `initiate_login_uri` (OpenID Connect Core 4, third-party
 * initiated login, with iss, login_hint and target_link_uri) when registered, else the tenant's URL,
 * which signs in through Nyckel when the app has no session of its own.
 */
export async function findTenantApp(
  db: Queryable,
  tenant: Pick<ImpersonationTenant, 'url'>,
  issuer: string,
  loginHint: string,
): Promise<TenantApp | null> {
  const origin = tenant.url ? originOf(tenant.url) : null;
  if (!tenant.url || !origin) return null;
  const clients = (await listClientMetadata(db)).filter((client) => client.redirect_uris?.some((uri) => originOf(uri) === origin));
  if (clients.length === 0) return null;
  const initiating = clients.find((client) => typeof client.initiate_login_uri === 'string');
  let entry = tenant.url;
  if (initiating?.initiate_login_uri) {
    const url = new URL(initiating.initiate_login_uri);
    url.searchParams.set('iss', issuer);
    url.searchParams.set('login_hint', loginHint);
    url.searchParams.set('target_link_uri', tenant.url);
    entry = url.toString();
  }
  return { client_ids: clients.map((client) => client.client_id), entry_url: entry };
}
