import type { RequestHandler } from 'express';
import type { Context } from '../context.ts';
import { isUnavailable } from '../http/error-handler.ts';
import { createRateLimits } from '../http/rate-limit.ts';

/** The back-channel endpoints relying parties call from their servers. */
const limitedPaths = new Set(['/oauth2/token', '/oauth2/introspect', '/oauth2/revoke']);

/**
 * Budgets for the token, introspection and revocation endpoints, per client and per IP. An RP's
 * backend serves all its users from few addresses, so the IP budget is twice the client's. The
 * client is read from HTTP Basic credentials only: the form body belongs to oidc-provider and is
 * not parsed here, so public clients (no Basic header) are held to the IP budget.
 */
export function limitOAuthEndpoints(ctx: Pick<Context, 'store' | 'config'>): RequestHandler {
  const perClient = ctx.config.oauthRateLimitPerMinute;
  const limits = createRateLimits(
    { store: ctx.store, config: { ...ctx.config, storePrefix: `${ctx.config.storePrefix}oauth:` } },
    { client: { points: perClient, duration: 60 }, ip: { points: perClient * 2, duration: 60 } },
  );
  return async (req, res, next) => {
    if (req.method !== 'POST' || !limitedPaths.has(req.path)) return next();
    try {
      const clientId = basicClientId(req.headers.authorization);
      await Promise.all([limits.consume('ip', req.ip ?? 'unknown'), clientId ? limits.consume('client', clientId) : undefined]);
      next();
    } catch (error) {
      if (isUnavailable(error)) {
        // The limiter's store is down: fail closed, in the OAuth shape these endpoints use.
        res.status(503).set('Retry-After', '5').json({ error: 'temporarily_unavailable', error_description: 'the authorization server is temporarily unavailable, try again later' });
        return;
      }
      const retryAfter = (error as { headers?: Record<string, string> }).headers?.['Retry-After'];
      if (retryAfter === undefined) return next(error);
      // RFC 6749 error shape, as oidc-provider answers everything else on these endpoints.
      res.status(429).set('Retry-After', retryAfter).json({ error: 'slow_down', error_description: 'too many requests, try again later' });
    }
  };
}

function basicClientId(header: string | undefined): string | undefined {
  if (!header?.startsWith('Basic ')) return undefined;
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const index = decoded.indexOf(':');
  if (index <= 0) return undefined;
  try {
    return decodeURIComponent(decoded.slice(0, index)).slice(0, 128);
  } catch {
    return undefined;
  }
}
