import type { Response } from 'express';
import Provider, { interactionPolicy, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { impersonationChecks, impersonationOfToken, isImpersonationToken, type ImpersonationMarks } from '../admin/impersonation/impersonation.oidc.ts';
import type { Config } from '../config/index.ts';
import type { Context } from '../context.ts';
import { createFindAccount } from './account.ts';
import { createOidcAdapter } from './adapter.ts';
import { clientAuthenticatedRoutes } from './back-channel.ts';
import { hashedClientSecrets } from './client-secret.ts';
import { logProviderErrors } from './error-log.ts';
import { failClosed, failClosedFindAccount } from './fail-closed.ts';
import { createClientAdapter, reuseDerivedClients } from './clients.ts';
import { createSigningKeyRefresh } from './key-refresh.ts';
import { loadSigningKeys } from './keys.ts';
import { noKnownScopePromptFirst } from './scope-prompt.ts';
import { portalSessionCheck, recordSigningIn } from './portal-session-check.ts';
import { logoutSource, postLogoutSuccessSource, renderError } from './pages.ts';
import { portalSessionTtlSeconds } from '../session/session-deadlines.ts';
import { endNyckelSessionOnLogout } from './rp-logout.ts';
import { loadExistingGrant, signInSilentRequests } from './silent-sign-in.ts';
import { settleTokenRequests } from './token-batch.ts';

export type NyckelProvider = Provider;

/** Seconds. Codes are short-lived and single-use; refresh tokens rotate on every use. */
export const tokenTtl = {
  AuthorizationCode: 60,
  AccessToken: 3600,
  IdToken: 3600,
  RefreshToken: 14 * 24 * 3600,
  Grant: 14 * 24 * 3600,
  Interaction: 3600,
} as const;

/**
 * A provider session lives as long as the Nyckel session that signs it in can (12 h, "remember
 * me" included): after that it answers nothing by itself (portalSessionCheck), and relying
 * parties' refresh tokens do not depend on it. One without an account (an authorization or a
 * logout that went no further) lives as long as an interaction, which may still sign it in: what
 * a visitor leaves behind, or a flood of anonymous requests, is gone within the hour rather than
 * kept for 14 days.
 */
export function providerSessionTtl(_koa: unknown, session: { accountId?: string | undefined }): number {
  return session.accountId ? portalSessionTtlSeconds : tokenTtl.Interaction;
}

/** oidc-provider's session cookie (and its signature cookie, `<name>.sig`) over plain HTTP; see providerSessionCookieFor. */
export const providerSessionCookie = 'nyckel_op_session';

/**
 * `__Host-nyckel_op_session` when cookies are Secure, as the portal's own (portal-cookie.ts): the
 * browser takes it only from this origin, with Path=/ and no Domain. A sibling subdomain could
 * otherwise plant a copy of its own signed-in OP session cookie for the parent domain, and the
 * person's next authorization would sign them in to the relying party as the attacker.
 */
export function providerSessionCookieFor(config: Pick<Config, 'secureCookies'>): string {
  return config.secureCookies ? `__Host-${providerSessionCookie}` : providerSessionCookie;
}

/** Scopes clients may ask for; `tenants` releases the account's active tenant list. */
const scopes = ['openid', 'offline_access', 'email', 'profile', 'tenants'];

/**
 * oidc-provider configured, never forked. Everything it stores goes through the Store-backed
 * adapter (Redis in production); clients come from the oidc_clients table; signing keys from
 * signing_keys. The library's development interactions are off: /auth/interaction/:uid bridges to
 * Nyckel's own login (src/oidc/interaction.routes.ts).
 */
export async function createProvider(ctx: Context): Promise<{ provider: Provider; refreshSigningKeys: () => void }> {
  const StoreAdapter = createOidcAdapter(ctx.store, tokenTtl);
  const ClientAdapter = createClientAdapter(ctx.db);
  class Adapter {
    constructor(name: string) {
      // oidc-provider instantiates one adapter per model; clients live in PostgreSQL.
      // An unreachable store or database answers 503 temporarily_unavailable (fail-closed.ts).
      return failClosed(name === 'Client' ? new ClientAdapter() : new StoreAdapter(name)) as Adapter;
    }
  }

  // What runs inside oidc-provider's own requests (the login prompt's checks, the silent sign-in,
  // its middleware, extra token claims) reads the store through this context, failing closed as
  // the adapters do: oidc-provider turns an error without a status into 500 server_error.
  const inProvider: Context = { ...ctx, store: failClosed(ctx.store) };
  const keys = await loadSigningKeys(ctx);
  const impersonationOf = (token: ImpersonationMarks) => impersonationOfToken(inProvider, token);
  const policy = interactionPolicy.base();
  for (const check of [portalSessionCheck(inProvider), ...impersonationChecks(inProvider)]) policy.get('login')!.checks.add(check);
  noKnownScopePromptFirst(policy);

  const configuration: Configuration = {
    adapter: Adapter as Configuration['adapter'],
    findAccount: failClosedFindAccount(createFindAccount(ctx.db, () => ctx.now().getTime(), impersonationOf)) as unknown as Configuration['findAccount'],
    jwks: { keys: keys as unknown as NonNullable<Configuration['jwks']>['keys'] },
    cookies: {
      keys: [...ctx.config.cookieSecrets],
      // POST to /authorize arrives cross-site, so the OP session cookie must be SameSite=None, which
      // browsers only accept with Secure: POST is enabled only when Nyckel is served over https.
      long: { httpOnly: true, sameSite: ctx.config.secureCookies ? 'none' : 'lax', secure: ctx.config.secureCookies },
      short: { httpOnly: true, sameSite: 'lax', secure: ctx.config.secureCookies },
      names: { session: providerSessionCookieFor(ctx.config), interaction: 'nyckel_interaction', resume: 'nyckel_interaction_resume' },
    },
    routes: {
      authorization: '/authorize',
      userinfo: '/userinfo',
      jwks: '/jwks',
      end_session: '/logout',
      // token, introspect, revoke, par: rate-limited before they reach oidc-provider.
      ...clientAuthenticatedRoutes,
    },
    scopes,
    claims: {
      // amr, acr and auth_time go into every ID token: relying parties decide step-up on them. `act`
      // (RFC 8693) names the operator of an impersonated sign-in; account.ts adds it only then.
      openid: ['sub', 'acr', 'amr', 'auth_time', 'act'],
      email: ['email', 'email_verified'],
      profile: ['name', 'locale', 'picture'],
      tenants: ['tenants'],
      sid: null,
    },
    responseTypes: ['code'],
    pkce: { required: () => true },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      id_token_signed_response_alg: 'ES256',
      token_endpoint_auth_method: 'client_secret_basic',
    },
    // Scope claims (email, name, ...) go into the ID token too, as most relying parties expect.
    conformIdTokenClaims: false,
    // Exact redirect_uri matching always: the parameter is never inferred.
    allowOmittingSingleRegisteredRedirectUri: false,
    enableHttpPostMethods: ctx.config.secureCookies,
    enabledJWA: { idTokenSigningAlgValues: ['ES256', 'RS256'] },
    // What clients can be registered with (clients.ts): a secret (Basic, or the same secret in the
    // body) or none (PKCE alone). Discovery names only these; the secret is kept hashed
    // (client-secret.ts), so client_secret_jwt, which signs with it, could not work anyway.
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    features: {
      devInteractions: { enabled: false },
      // A client learns about, and revokes, its own tokens only: the relying parties are tenants'
      // separate applications, none of them a resource server for another's tokens. Another
      // client's token is answered as an unknown one (introspection: inactive; revocation: 200
      // with no effect, where oidc-provider's default answers 400 and so tells it the token is live).
      revocation: { enabled: true, allowedPolicy: (_koa, client, token) => token.clientId === client.clientId },
      // An impersonation's token whose operator is no longer an admin is inactive here too, as
      // userinfo refuses it (findAccount): introspection does not ask findAccount.
      introspection: {
        enabled: true,
        allowedPolicy: async (_koa, client, token) =>
          token.clientId === client.clientId && (!isImpersonationToken(token) || (await impersonationOf(token)) !== null),
      },
      rpInitiatedLogout: { enabled: true, logoutSource, postLogoutSuccessSource },
      userinfo: { enabled: true },
      resourceIndicators: { enabled: false },
      pushedAuthorizationRequests: { enabled: true },
    },
    loadExistingGrant,
    interactions: {
      policy,
      url: (_ctx: KoaContextWithOIDC, interaction) => `/auth/interaction/${interaction.uid}`,
    },
    // Access tokens of an impersonated grant carry `act` too (introspection shows it).
    extraTokenClaims: async (koa, token) => {
      // The code or refresh token being exchanged says whether the sign-in was an impersonation.
      // Tokens minted outside a request (operator tooling, tests) have no context and no such source.
      const entities = (koa as KoaContextWithOIDC | undefined)?.oidc?.entities;
      const exchanged = (entities?.AuthorizationCode ?? entities?.RefreshToken) as ImpersonationMarks | undefined;
      const grantId = 'grantId' in token ? token.grantId : undefined;
      const impersonation = exchanged ? await impersonationOf({ amr: exchanged.amr, grantId }) : null;
      return impersonation ? { act: impersonation.act } : undefined;
    },
    // Refresh tokens rotate on every use; oidc-provider revokes the grant when a rotated one is replayed.
    rotateRefreshToken: true,
    issueRefreshToken: async (_ctx, client, code) =>
      client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access'),
    ttl: { ...tokenTtl, Session: providerSessionTtl },
    acrValues: ['urn:nyckel:loa:1', 'urn:nyckel:loa:2'],
    renderError,
    clientBasedCORS: (_ctx, origin, client) =>
      client.redirectUris?.some((uri) => URL.parse(uri)?.origin === origin) ?? false,
  };

  const provider = new Provider(ctx.config.issuer, configuration);
  provider.proxy = ctx.config.trustProxy > 0;
  pinRequestOrigin(provider, ctx.config.issuer);
  reuseDerivedClients(provider, (id) => ClientAdapter.cached(id));
  endNyckelSessionOnLogout(inProvider, provider);
  // The table keeps client secrets as hashes: presented secrets are compared hashed (client-secret.ts).
  hashedClientSecrets(provider);
  logProviderErrors(provider, ctx.logger);
  signInSilentRequests(inProvider, provider);
  provider.use(settleTokenRequests(provider, ctx.store));
  provider.use(structuredTokensInactive);
  provider.use(recordSigningIn(inProvider));
  // Unknown paths and methods under /oauth2 answer in the OAuth error shape, not Koa's plain text.
  provider.use(async (koa, next) => {
    await next();
    if (koa.status === 404 && koa.body === undefined) {
      koa.body = { error: 'invalid_request', error_description: 'unrecognized route or unsupported method' };
      koa.status = 404;
    }
  });
  return { provider, refreshSigningKeys: createSigningKeyRefresh(ctx, provider, keys) };
}

/**
 * Introspecting a JWT (an ID token, say) answers `{"active":false}`, as RFC 7662 section 2.2 has
 * it for any token the server does not know as introspectable: oidc-provider refuses structured
 * tokens with 400 `unsupported_token_type`, a revocation error (RFC 7009) that generic clients
 * take for a failure of their own request. Nyckel's access and refresh tokens are opaque, so a
 * JWT is never one of them. Revocation keeps oidc-provider's answer, which RFC 7009 defines.
 */
async function structuredTokensInactive(koa: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
  await next();
  const body = koa.body as { error?: unknown } | undefined;
  if ((koa.oidc as KoaContextWithOIDC['oidc'] | undefined)?.route === 'introspection' && koa.status === 400 && body?.error === 'unsupported_token_type') {
    koa.status = 200;
    koa.body = { active: false };
  }
}

/**
 * Forgets oidc-provider's session in this browser (the session itself expires in the store). The
 * next authorization starts a new one; the portal session signs the person in again without a page.
 */
export function clearProviderSessionCookie(res: Response, config: Config): void {
  const options = { httpOnly: true, path: '/', sameSite: config.secureCookies ? ('none' as const) : ('lax' as const), secure: config.secureCookies };
  const name = providerSessionCookieFor(config);
  res.clearCookie(name, options);
  res.clearCookie(`${name}.sig`, options);
}

/**
 * oidc-provider builds every URL it hands out (discovery's endpoints and jwks_uri, its forms'
 * actions, its redirects to itself) from the request's scheme and host, as Koa reads them: the
 * Host header, or X-Forwarded-Host and X-Forwarded-Proto behind a trusted proxy, which many load
 * balancers pass on from the client unchanged. A request with `Host: evil.example` then got a
 * discovery document naming evil.example's token endpoint, and a proxy that says nothing got
 * http:// URLs for an https issuer (and secure cookies refused). Like the rest of Nyckel (emails,
 * the portal's cookies), oidc-provider now takes both from ISSUER; TRUST_PROXY still decides
 * whose address a request comes from.
 */
function pinRequestOrigin(provider: Provider, issuer: string): void {
  const { host, protocol } = new URL(issuer);
  const scheme = protocol.slice(0, -1);
  Object.defineProperties(provider.request, {
    host: { get: () => host, configurable: true },
    protocol: { get: () => scheme, configurable: true },
  });
}

