import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Level, Logger } from 'pino';

declare module 'express-serve-static-core' {
  interface Request {
    /** This request's logger: the app's, bound to the request id (created on first use). */
    log: Logger;
  }
}

/**
 * Paths that end in a secret: a reset link's token, an email change's token, an impersonation
 * hand-off's token. None is logged, nor anything after it. Case-insensitive, as Express routes them.
 */
const secretInPath = /^(\/(?:login\/set-password|login\/confirm-email|auth\/impersonate)\/)[^/?]+.*/i;
/** Paths whose query strings may carry secrets: only the path is logged. */
const pathOnly = /^\/oauth2(?:[/?]|$)/i;
/**
 * Query parameters that carry secrets anywhere else, and those that carry an address: the login
 * page's `email`, and `login_hint`: an application's, and the login page's copy of it (src/oidc/
 * interaction.routes.ts). The access log must not become a list of who signs in.
 */
const secretParams = /([?&](?:token|code|otp|password|session_id|email|login_hint)=)[^&]*/gi;
/**
 * The console's searches carry their term in the path: a person's name or address, or a tenant's
 * name. Only the term is left out, for the same reason as `email` above.
 */
const searchTermInPath = /^(\/api\/(?:accounts|tenants)\/search\/)[^/?]+/i;

export function loggableUrl(url: string): string {
  if (secretInPath.test(url)) return url.replace(secretInPath, '$1[redacted]');
  if (pathOnly.test(url)) return url.split('?')[0] ?? url;
  return url.replace(searchTermInPath, '$1[redacted]').replace(secretParams, '$1[redacted]');
}

const unlogged = new Set(['/healthz', '/readyz']);

/**
 * One line per request once it is answered (or abandoned): method, URL without secrets, status,
 * response time, at info, warn for 4xx and error for 5xx. A level that is switched off costs the
 * request one listener and nothing else: the line is not even assembled.
 *
 * `url` is the request's full URL (Express's originalUrl). Answers the request's id. Used directly
 * by the back channel (src/oidc/back-channel.ts), which is served before Express.
 */
export function createRequestLogger(logger: Logger): (req: IncomingMessage, res: ServerResponse, url: string) => number {
  let lastId = 0;
  return (req, res, url) => {
    const started = performance.now();
    lastId = lastId >= Number.MAX_SAFE_INTEGER ? 1 : lastId + 1;
    const id = lastId;
    if (unlogged.has(url)) return id;
    res.once('close', () => {
      const level: Level = res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const line = {
        reqId: id,
        req: { id, method: req.method, url: loggableUrl(url) },
        res: { statusCode: res.statusCode },
        responseTime: Math.round(performance.now() - started),
      };
      logger[level](line, res.writableFinished ? 'request completed' : 'request aborted');
    });
    return id;
  };
}

/** The access log as Express middleware; `req.log` is a child logger carrying the request id, made only when something logs through it. */
export function accessLog(logger: Logger): RequestHandler {
  const logRequest = createRequestLogger(logger);
  return (req, res, next) => {
    const id = logRequest(req, res, req.originalUrl);
    let child: Logger | undefined;
    Object.defineProperty(req, 'log', { configurable: true, enumerable: false, get: () => (child ??= logger.child({ reqId: id })) });
    next();
  };
}
