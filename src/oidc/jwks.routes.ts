import { Router } from 'express';
import type { Context } from '../context.ts';
import { jwksRefreshSeconds, publishedKeys, type PublicJwk } from './keys.ts';

/**
 * GET /oauth2/jwks, served from the database rather than from the keys oidc-provider loaded at
 * start: a key rotated in while this instance runs is listed within jwksRefreshSeconds, before
 * any instance signs with it (keys.ts, keyPublishSeconds). So a relying party verifies a token
 * from a restarted instance whichever instance its JWKS request reaches.
 *
 * The list is first read as the router is made (start-up, with the database just used); when the
 * database cannot be read, the last list read is served. Never oidc-provider's own JWKS: it holds
 * retired keys for as long as they verify id_token_hint (keys.ts retiredKeyHintSeconds), longer
 * than relying parties may trust them. With no list read at all, 503: relying parties retry.
 */
export function createJwksRouter(ctx: Pick<Context, 'db' | 'secretBox' | 'now' | 'logger'>): Router {
  const router = Router();
  let cached: { keys: PublicJwk[]; readAt: number } | undefined;
  let reading: Promise<PublicJwk[]> | undefined;

  const read = () => {
    reading ??= publishedKeys(ctx)
      .then((keys) => {
        cached = { keys, readAt: ctx.now().getTime() };
        return keys;
      })
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
  read().catch((error: unknown) => ctx.logger.warn({ err: error }, 'could not read the signing keys for the JWKS'));

  router.get('/oauth2/jwks', async (_req, res) => {
    let keys = cached && ctx.now().getTime() - cached.readAt < jwksRefreshSeconds * 1000 ? cached.keys : undefined;
    if (!keys) {
      try {
        keys = await read();
      } catch (error) {
        ctx.logger.warn({ err: error }, 'could not read the signing keys for the JWKS');
        keys = cached?.keys;
      }
    }
    if (!keys) {
      res.set('Retry-After', '5').status(503).json({ error: 'temporarily_unavailable', error_description: 'the signing keys cannot be read, try again later' });
      return;
    }
    // As oidc-provider answers it: any origin may read the JWKS.
    res.set('Access-Control-Allow-Origin', '*');
    res.type('application/jwk-set+json; charset=utf-8').send(JSON.stringify({ keys }));
  });

  return router;
}
