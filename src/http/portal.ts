import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { Router, type RequestHandler } from 'express';
import expressStaticGzip from 'express-static-gzip';
import { projectRoot } from '../config/project-root.ts';

export const portalDist = join(projectRoot, 'portal/dist');

/** Client-side routes of the portal: each answers with index.html. */
const spaRoutes = ['/', '/login', '/login/*rest', '/profile', '/profile/*rest', '/admin', '/admin/*rest'];

/**
 * Serves the built portal. Hashed assets are immutable; index.html is never cached so a deploy
 * takes effect at once. The set-password and confirm-email pages send no Referer: their URLs hold
 * a token.
 */
export function createPortalRouter(securityHeaders: RequestHandler, dist = portalDist): Router {
  const router = Router();
  if (!existsSync(join(dist, 'index.html'))) {
    router.get(spaRoutes, securityHeaders, (_req, res) => {
      res.status(503).type('text').send('The portal is not built. Run `npm run build`.');
    });
    return router;
  }
  // The build's brotli and gzip copies go to browsers that accept them (portal/vite.config.ts), the
  // file itself to the rest; `Vary: Accept-Encoding` keeps shared caches from mixing them up.
  router.use(
    '/assets',
    securityHeaders,
    skipUndecodable,
    expressStaticGzip(join(dist, 'assets'), {
      enableBrotli: true,
      orderPreference: ['br', 'gzip'],
      index: false,
      serveStatic: { immutable: true, maxAge: '1y', index: false },
    }),
  );
  // /index.html is the portal too: served by the static mount below, it would come without its
  // CSP and frame refusal, ready for someone's frame.
  router.get('/index.html', securityHeaders, (_req, res) => {
    res.set('Cache-Control', 'no-store');
    res.sendFile(join(dist, 'index.html'));
  });
  // The rest of the build's root files (icons): not pages. Mounted on every path, so no headers
  // here, or the portal's CSP would reach oidc-provider's pages under /oauth2. So no page either:
  // the static server decodes and normalises the path (//index.html, /%69ndex.html) where the
  // route above matched it as written, and would serve the portal without its headers.
  router.use(notAPage, express.static(dist, { index: false, maxAge: '1h' }));
  router.get(spaRoutes, securityHeaders, (req, res) => {
    if (req.path.startsWith('/login/set-password') || req.path.startsWith('/login/confirm-email')) res.set('Referrer-Policy', 'no-referrer');
    res.set('Cache-Control', 'no-store');
    res.sendFile(join(dist, 'index.html'));
  });
  return router;
}

/**
 * A path that does not decode names no asset: on to the app's 404 in the API's error shape
 * (express-static-gzip would answer it itself, with a plain-text 400).
 */
const skipUndecodable: RequestHandler = (req, _res, next) => {
  try {
    decodeURIComponent(req.path);
  } catch {
    return next('router');
  }
  next();
};

/** Passes a request on to the static files unless it names an HTML file, however it is spelled. */
const notAPage: RequestHandler = (req, _res, next) => {
  let path = req.path;
  try {
    path = decodeURIComponent(path);
  } catch {
    // Not decodable: the static server refuses it (400) itself.
  }
  next(/\.html?$/i.test(path) ? 'router' : undefined);
};
