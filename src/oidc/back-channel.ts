import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import proxyAddr from 'proxy-addr';
import type { Context } from '../context.ts';
import { isUnavailable } from '../http/error-handler.ts';
import { createRequestLogger } from '../observability/access-log.ts';
import { measureRequest } from '../observability/metrics.ts';
import { createOAuthEndpointLimits, storeDownRefusal, type Refusal } from './endpoint-limits.ts';
import { oversized } from './request-size.ts';

/** Where oidc-provider is mounted. */
export const oauthMount = '/oauth2';

/**
 * oidc-provider's routes (provider.ts) for the endpoints that authenticate the client: the back
 * channel relying parties call from their servers, and pushed authorization requests (PAR, RFC
 * 9126), which take the same client credentials. Each is held to the budgets below; a route left
 * out would let client secrets be guessed there as fast as the server answers.
 */
export const clientAuthenticatedRoutes = {
  token: '/token',
  introspection: '/introspect',
  revocation: '/revoke',
  pushed_authorization_request: '/par',
} as const;

const backChannelPaths = new Set(Object.values(clientAuthenticatedRoutes).map((path) => `${oauthMount}${path}`));

/**
 * The metrics route of a back-channel request, or undefined for any other request. oidc-provider
 * routes paths case-insensitively and with or without one trailing slash, so the budgets must
 * match the same way: `/oauth2/TOKEN/` reaches the token endpoint and is held to its budget.
 */
export function backChannelRoute(method: string | undefined, url: string | undefined): string | undefined {
  if (method !== 'POST' || !url) return undefined;
  const query = url.indexOf('?');
  let path = (query === -1 ? url : url.slice(0, query)).toLowerCase();
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return backChannelPaths.has(path) ? path : undefined;
}

/**
 * The HTTP entry point: the back channel (token, introspection, revocation, PAR) goes straight to
 * oidc-provider, everything else to Express (`rest`).
 *
 * A relying party's server calls the back channel on every sign-in and every refresh, and none of
 * Express's work applies to it: no body parsing, cookies, origin check or routing of ours, and
 * oidc-provider answers every request itself. So those requests skip Express and get only what
 * they need: the metrics and access log every request gets, the client's address as Express
 * would compute it (the same `trust proxy` hop count, through the same proxy-addr), the
 * per-client and per-IP budgets, and oidc-provider at its mount path.
 */
export function createHttpHandler(ctx: Pick<Context, 'store' | 'config' | 'logger'>, oauth: RequestListener, rest: RequestListener): RequestListener {
  const limits = createOAuthEndpointLimits(ctx);
  const logRequest = createRequestLogger(ctx.logger);
  const trusted = ctx.config.trustProxy;
  const trust = (_address: string, hop: number) => hop < trusted;

  const toProvider = (req: IncomingMessage, res: ServerResponse, refusal: Refusal | undefined) => {
    if (refusal) return refuse(res, refusal);
    // oidc-provider sends Cache-Control: no-store; RFC 6749 (5.1) asks for the HTTP/1.0 header too.
    res.setHeader('Pragma', 'no-cache');
    // As Express mounts it: oidc-provider finds its mount path from originalUrl minus url.
    (req as IncomingMessage & { originalUrl: string }).originalUrl = req.url!;
    req.url = req.url!.slice(oauthMount.length);
    oauth(req, res);
  };

  return (req, res) => {
    // An absolute-form request target (`POST http://host/oauth2/token HTTP/1.1`, RFC 9112 3.2.2)
    // is routed by its path like any other, so it meets the same budgets.
    if (req.url !== undefined && !req.url.startsWith('/')) {
      const target = URL.parse(req.url);
      if (!target) return refuse(res, { status: 400, body: { error: 'invalid_request', error_description: 'malformed request target' } });
      req.url = target.pathname + target.search;
    }
    // A fragment is not part of a request target (RFC 9112 3.2), and Express would route
    // `/oauth2/token#x` to the token endpoint while the budgets below saw another path.
    if (req.url?.includes('#')) return refuse(res, { status: 400, body: { error: 'invalid_request', error_description: 'malformed request target' } });
    const route = backChannelRoute(req.method, req.url);
    if (route === undefined) return rest(req, res);
    measureRequest('POST', route, res);
    logRequest(req, res, req.url!);
    const tooLarge = oversized(req);
    if (tooLarge) return refuse(res, tooLarge);
    const refusal = limits(proxyAddr(req, trust), req.headers.authorization);
    if (!(refusal instanceof Promise)) return toProvider(req, res, refusal);
    settleBudget(ctx, res, refusal, 'back-channel budget failed', (decided) => toProvider(req, res, decided));
  };
}

/**
 * Goes on with a budget's decision that had to ask the store: a store that cannot be reached is
 * answered 503 (the budget fails closed), anything else 500, logged as `failure`.
 */
function settleBudget<T>(ctx: Pick<Context, 'logger'>, res: ServerResponse, decision: Promise<T>, failure: string, go: (decided: T) => void): void {
  decision.then(go, (error: unknown) => {
    if (isUnavailable(error)) return refuse(res, storeDownRefusal);
    ctx.logger.error({ err: error }, failure);
    refuse(res, { status: 500, body: { error: 'server_error', error_description: 'oops! something went wrong' } });
  });
}

export function refuse(res: ServerResponse, refusal: Refusal): void {
  const body = JSON.stringify(refusal.body);
  res.statusCode = refusal.status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Pragma', 'no-cache');
  if (refusal.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(refusal.retryAfterSeconds));
  res.end(body);
}
