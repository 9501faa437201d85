/**
 * The browser-facing endpoints under /oauth2 (authorization and logout) as they reach Express:
 * what oidc-provider would store of a request is capped (request-size.ts), and each address has
 * a budget of authorization and logout requests. Each of them may leave an interaction or a
 * provider session in Redis; the budget keeps one address from leaving them by the hundred
 * thousand. It is generous: a whole office behind one address signing in at 8 a.m. stays far
 * below it.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Context } from '../context.ts';
import { BatchedWindowLimiter, type LimitAnswer } from '../http/batched-limit.ts';
import { ipBudgetKey } from '../http/ip-key.ts';
import { refuse } from './back-channel.ts';
import { sendErrorPage, sendTooManyAttempts } from './pages.ts';
import { oversized } from './request-size.ts';
import { pageLanguage } from './ui-locales.ts';

/** The paths (under the mount, lower case, without a trailing slash) the budget holds: not a resume (/authorize/:uid) or a logout's confirmation. */
const budgeted = new Set(['/authorize', '/logout']);

/**
 * A person's browser gets a page in their language; a relying party's code (or anything not
 * preferring HTML, as oidc-provider decides for its own errors) the OAuth error in JSON.
 */
const wantsPage = (req: Request) => req.accepts(['json', 'html']) === 'html';
const languageOf = (req: Request) => pageLanguage(req.query.ui_locales, req.acceptsLanguages('en', 'sv'));

export function frontChannelGuard(ctx: Pick<Context, 'store' | 'config'>): RequestHandler {
  const byIp = new BatchedWindowLimiter(ctx.store, { points: ctx.config.authorizeRateLimitPerMinute, duration: 60, prefix: 'oauth-limit:front:' });
  const answer = (req: Request, res: Response, next: NextFunction, decided: LimitAnswer) => {
    if (decided.allowed) return next();
    if (wantsPage(req)) return sendTooManyAttempts(res, languageOf(req), decided.retryAfterSeconds);
    refuse(res, { status: 429, retryAfterSeconds: decided.retryAfterSeconds, body: { error: 'slow_down', error_description: 'too many requests, try again later' } });
  };
  return (req, res, next) => {
    let path = req.path.toLowerCase();
    if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    const tooLarge = oversized(req);
    if (tooLarge) {
      if (!wantsPage(req)) return refuse(res, tooLarge);
      return sendErrorPage(res, tooLarge.status, languageOf(req), path.startsWith('/logout') ? 'sign-out' : 'sign-in', tooLarge.body);
    }
    if (!budgeted.has(path)) return next();
    const decided = byIp.hit(ipBudgetKey(req.ip ?? 'unknown'));
    if (!(decided instanceof Promise)) return answer(req, res, next, decided);
    // With the store unreachable nothing can be stored either: the request goes on, and
    // oidc-provider answers it as an outage (temporarily_unavailable at the client's redirect).
    decided.then((outcome) => answer(req, res, next, outcome), () => next());
  };
}
