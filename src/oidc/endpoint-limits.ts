import type { RequestHandler } from 'express';
import type { Context } from '../context.ts';
import { BatchedWindowLimiter, type LimitAnswer } from '../http/batched-limit.ts';
import { isUnavailable } from '../http/error-handler.ts';

/** The back-channel endpoints relying parties call from their servers. */
const limitedPaths = new Set(['/token', '/introspect', '/revoke']);

/**
 * Budgets for the token, introspection and revocation endpoints, per client and per IP. An RP's
 * backend serves all its users from few addresses, so the IP budget is twice the client's. The
 * client is read from HTTP Basic credentials only: the form body belongs to oidc-provider and is
 * not parsed here, so public clients (no Basic header) are held to the IP budget.
 *
 * These budgets stop an RP or an address from flooding the endpoints; the requests carry codes
 * and tokens nobody can guess, so they need not be exact to the request across instances and are
 * counted without a store round trip (src/http/batched-limit.ts).
 *
 * Mounted at /oauth2. `oauth` is the handler of those endpoints (oidc-provider): a request within
 * budget goes straight to it, past the routers that never answer these paths.
 */
export function limitOAuthEndpoints(ctx: Pick<Context, 'store' | 'config'>, oauth: RequestHandler): RequestHandler {
  const perClient = ctx.config.oauthRateLimitPerMinute;
  const prefix = 'oauth-limit:';
  const byClient = new BatchedWindowLimiter(ctx.store, { points: perClient, duration: 60, prefix: `${prefix}client:` });
  const byIp = new BatchedWindowLimiter(ctx.store, { points: perClient * 2, duration: 60, prefix: `${prefix}ip:` });
  return (req, res, next) => {
    if (req.method !== 'POST' || !limitedPaths.has(req.path)) return next();
    const clientId = basicClientId(req.headers.authorization);
    const answers = [byIp.hit(req.ip ?? 'unknown'), clientId === undefined ? undefined : byClient.hit(clientId)];
    const go = (decided: (LimitAnswer | undefined)[]) => {
      const refused = decided.find((answer): answer is Extract<LimitAnswer, { allowed: false }> => answer?.allowed === false);
      if (!refused) return oauth(req, res, next);
      // RFC 6749 error shape, as oidc-provider answers everything else on these endpoints.
      res.status(429).set('Retry-After', String(refused.retryAfterSeconds)).json({ error: 'slow_down', error_description: 'too many requests, try again later' });
    };
    if (!answers.some((answer) => answer instanceof Promise)) return go(answers as (LimitAnswer | undefined)[]);
    Promise.all(answers).then(go, (error: unknown) => {
      if (!isUnavailable(error)) return next(error);
      // The limiter's store is down: fail closed, in the OAuth shape these endpoints use.
      res.status(503).set('Retry-After', '5').json({ error: 'temporarily_unavailable', error_description: 'the authorization server is temporarily unavailable, try again later' });
    });
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
