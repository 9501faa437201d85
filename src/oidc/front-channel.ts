/**
 * The browser-facing endpoints under /oauth2 (authorization and logout) as they reach Express:
 * what oidc-provider would store of a request is capped (request-size.ts), and each address has
 * a budget of authorization and logout requests. Each of them may leave an interaction or a
 * provider session in Redis; the budget keeps one address from leaving them by the hundred
 * thousand. It is generous: a whole office behind one address signing in at 8 a.m. stays far
 * below it.
 */
import type { RequestHandler } from 'express';
import type { Context } from '../context.ts';
import { BatchedWindowLimiter, type LimitAnswer } from '../http/batched-limit.ts';
import { ipBudgetKey } from '../http/ip-key.ts';
import { refuse } from './back-channel.ts';
import { oversized } from './request-size.ts';

/** The paths (under the mount, lower case, without a trailing slash) the budget holds: not a resume (/authorize/:uid) or a logout's confirmation. */
const budgeted = new Set(['/authorize', '/logout']);

export function frontChannelGuard(ctx: Pick<Context, 'store' | 'config'>): RequestHandler {
  const byIp = new BatchedWindowLimiter(ctx.store, { points: ctx.config.authorizeRateLimitPerMinute, duration: 60, prefix: 'oauth-limit:front:' });
  const answer = (res: Parameters<RequestHandler>[1], next: Parameters<RequestHandler>[2], decided: LimitAnswer) => {
    if (decided.allowed) return next();
    refuse(res, { status: 429, retryAfterSeconds: decided.retryAfterSeconds, body: { error: 'slow_down', error_description: 'too many requests, try again later' } });
  };
  return (req, res, next) => {
    const tooLarge = oversized(req);
    if (tooLarge) return refuse(res, tooLarge);
    let path = req.path.toLowerCase();
    if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    if (!budgeted.has(path)) return next();
    const decided = byIp.hit(ipBudgetKey(req.ip ?? 'unknown'));
    if (!(decided instanceof Promise)) return answer(res, next, decided);
    // With the store unreachable nothing can be stored either: the request goes on, and
    // oidc-provider answers it as an outage (temporarily_unavailable at the client's redirect).
    decided.then((outcome) => answer(res, next, outcome), () => next());
  };
}
