import type { EventEmitter } from 'node:events';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Logger } from 'pino';

/**
 * The events oidc-provider emits when it answers a request with an OAuth error (4xx). Its answer
 * says only `invalid_grant: grant request is invalid`; the reason (a wrong PKCE verifier, an
 * expired code, a redirect_uri that differs) is in the error's `error_detail`, which it never
 * sends. Logged here, an operator helping a relying party's developer can tell them.
 */
const clientErrorEvents = [
  'authorization.error',
  'grant.error',
  'introspection.error',
  'revocation.error',
  'userinfo.error',
  'end_session.error',
  'end_session_confirm.error',
  'end_session_success.error',
  'pushed_authorization_request.error',
  'jwks.error',
  'discovery.error',
] as const;

interface ProviderError extends Error {
  error?: string;
  error_description?: string;
  error_detail?: string;
}

/** The request's logger (bound to its id by the access log) when Express served it, else the app's. */
const loggerOf = (koa: KoaContextWithOIDC, fallback: Logger): Logger => (koa.req as { log?: Logger }).log ?? fallback;

/**
 * Logs oidc-provider's error answers: client errors at info with the error, its description and
 * detail, the route and the client; server errors (which oidc-provider answers as a bare
 * server_error and otherwise logs nowhere) at error with the stack. Error details name what was
 * wrong, never the code or token itself; they are cut to 300 characters all the same.
 */
export function logProviderErrors(provider: Provider, logger: Logger): void {
  // Typed per event in oidc-provider's types; these share one listener shape.
  const events = provider as unknown as EventEmitter;
  for (const event of clientErrorEvents) {
    events.on(event, (koa: KoaContextWithOIDC, error: ProviderError) => {
      const log = loggerOf(koa, logger);
      if (!log.isLevelEnabled('info')) return;
      log.info(
        {
          oauthError: {
            route: koa.oidc?.route,
            client_id: koa.oidc?.client?.clientId,
            error: error.error ?? error.name,
            description: error.error_description,
            detail: error.error_detail?.slice(0, 300),
          },
        },
        'oauth error answered',
      );
    });
  }
  provider.on('server_error', (koa: KoaContextWithOIDC, error: Error) => {
    loggerOf(koa, logger).error({ err: error, route: koa.oidc?.route }, 'oidc-provider failed to answer');
  });
}
