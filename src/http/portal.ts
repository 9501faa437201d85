import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { Router, type RequestHandler } from 'express';
import { projectRoot } from '../config/project-root.ts';

export const portalDist = join(projectRoot, 'portal/dist');

/** Client-side routes of the portal: each answers with index.html. */
const spaRoutes = ['/', '/login', '/login/*rest', '/profile', '/profile/*rest', '/admin', '/admin/*rest'];

/**
 * Serves the built portal. Hashed assets are immutable; index.html is never cached so a deploy
 * takes effect at once. The set-password page sends no Referer: its URL holds a reset token.
 */
/** index.html is the page itself wherever it is served: never cached, as on the portal's routes. */
function noStoreForPage(res: express.Response, path: string): void {
  if (path.endsWith('index.html')) res.setHeader('Cache-Control', 'no-store');
}

export function createPortalRouter(securityHeaders: RequestHandler, dist = portalDist): Router {
  const router = Router();
  if (!existsSync(join(dist, 'index.html'))) {
    router.get(spaRoutes, securityHeaders, (_req, res) => {
      res.status(503).type('text').send('The portal is not built. Run `npm run build`.');
    });
    return router;
  }
  router.use('/assets', securityHeaders, express.static(join(dist, 'assets'), { immutable: true, maxAge: '1y', index: false }));
  // The rest of the build (index.html itself at /index.html, icons) with the same headers: served
  // bare, /index.html would be the portal without its CSP and frame refusal, in someone's frame.
  router.use(securityHeaders, express.static(dist, { index: false, maxAge: '1h', setHeaders: noStoreForPage }));
  router.get(spaRoutes, securityHeaders, (req, res) => {
    if (req.path.startsWith('/login/set-password')) res.set('Referrer-Policy', 'no-referrer');
    res.set('Cache-Control', 'no-store');
    res.sendFile(join(dist, 'index.html'));
  });
  return router;
}
