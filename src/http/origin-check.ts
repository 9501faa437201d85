import type { RequestHandler } from 'express';
import { errors } from './app-error.ts';

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * CSRF defence for cookie-authenticated JSON calls: a state-changing request must come from our
 * own origin (Origin, or Referer when a browser omits Origin) — or from no browser at all (no
 * Origin and no Referer, e.g. curl, which carries no ambient cookies of a victim). SameSite=Lax
 * cookies are the second layer.
 */
export function sameOrigin(publicUrl: string): RequestHandler {
  const allowed = new URL(publicUrl).origin;
  return (req, _res, next) => {
    if (safeMethods.has(req.method)) return next();
    const origin = req.get('origin');
    if (origin !== undefined) return next(origin === allowed ? undefined : errors.badOrigin());
    const referer = req.get('referer');
    if (referer !== undefined) {
      let refererOrigin: string | undefined;
      try {
        refererOrigin = new URL(referer).origin;
      } catch {
        refererOrigin = undefined;
      }
      return next(refererOrigin === allowed ? undefined : errors.badOrigin());
    }
    if (req.get('sec-fetch-site') === 'cross-site') return next(errors.badOrigin());
    next();
  };
}
