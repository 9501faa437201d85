import * as client from 'openid-client';
import type { Config, UpstreamProviderConfig } from '../config/index.ts';
import type { Context } from '../context.ts';
import { upstreamErrors } from './upstream-errors.ts';
import { providerSettings, type UpstreamProviderName } from './upstream-providers.ts';

/** Seconds for discovery and, after it, for every call to the provider (token endpoint, JWKS). */
export const upstreamTimeoutSeconds = 10;

/** One discovery per app (its frozen Config) and provider, made on first use and kept. */
const cache = new WeakMap<Config, Map<UpstreamProviderName, Promise<client.Configuration>>>();

/**
 * The openid-client configuration of a provider: discovery runs lazily on first use, with a
 * timeout, and is cached; a failed discovery is not cached (the next sign-in tries again) and
 * answers `oauth/provider_unavailable` instead of hanging the browser.
 */
export async function upstreamClient(ctx: Pick<Context, 'config' | 'logger'>, name: UpstreamProviderName): Promise<client.Configuration> {
  const settings = providerSettings(ctx.config, name);
  if (!settings) throw upstreamErrors.notConfigured();
  let perApp = cache.get(ctx.config);
  if (!perApp) cache.set(ctx.config, (perApp = new Map()));
  let pending = perApp.get(name);
  if (!pending) {
    pending = discover(ctx.config, settings);
    perApp.set(name, pending);
    pending.catch(() => perApp.delete(name));
  }
  try {
    return await pending;
  } catch (error) {
    ctx.logger.warn({ provider: name, issuer: settings.issuer, err: describe(error) }, 'upstream discovery failed');
    throw upstreamErrors.unavailable();
  }
}

/**
 * The ID token's signature is checked against the provider's JWK Set too
 * (enableNonRepudiationChecks): openid-client otherwise relies on the TLS of the token endpoint
 * alone, which OpenID Connect allows for the code flow, and which a proxy that terminates TLS on
 * the way out (or a mis-pinned resolver) would leave as the only check.
 */
function discover(config: Config, settings: UpstreamProviderConfig): Promise<client.Configuration> {
  return client.discovery(new URL(settings.issuer), settings.clientId, undefined, client.ClientSecretPost(settings.clientSecret), {
    timeout: upstreamTimeoutSeconds,
    execute: [...(mayUsePlainHttp(config, settings.issuer) ? [client.allowInsecureRequests] : []), client.enableNonRepudiationChecks],
  });
}

/**
 * openid-client refuses http:// issuers. Tests run their upstream providers on loopback over
 * plain http; nothing else may, and production never (config also refuses it there).
 */
export function mayUsePlainHttp(config: Pick<Config, 'env'>, issuer: string): boolean {
  const url = new URL(issuer);
  return config.env !== 'production' && url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

/**
 * The provider did not answer: openid-client's timeout (`OAUTH_TIMEOUT`, after
 * upstreamTimeoutSeconds) or fetch's network failure (refused, reset, DNS), which it passes on as
 * the TypeError "fetch failed". Any answer, an error one too, means the provider is there.
 */
export function isUnreachable(error: unknown): boolean {
  if ((error as { code?: unknown } | null)?.code === 'OAUTH_TIMEOUT') return true;
  return error instanceof TypeError && error.message === 'fetch failed';
}

/** An error for the log: its name, code and message, never a token or response body. */
export function describe(error: unknown): { name?: string; code?: string; message?: string; error?: string } {
  if (typeof error !== 'object' || error === null) return { message: String(error) };
  const e = error as { name?: unknown; code?: unknown; message?: unknown; error?: unknown };
  return {
    ...(typeof e.name === 'string' ? { name: e.name } : {}),
    ...(typeof e.code === 'string' ? { code: e.code } : {}),
    ...(typeof e.message === 'string' ? { message: e.message } : {}),
    ...(typeof e.error === 'string' ? { error: e.error } : {}),
  };
}
