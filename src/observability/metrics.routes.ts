import { createHash, timingSafeEqual } from 'node:crypto';
import { Router } from 'express';
import type { Config } from '../config/index.ts';
import { registry } from './metrics.ts';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * GET /metrics. With METRICS_TOKEN set, only `Authorization: Bearer <token>` reads it (compared in
 * constant time); without one it is open in development and absent in production.
 */
export function createMetricsRouter(config: Pick<Config, 'env' | 'metricsToken'>): Router {
  const router = Router();
  router.get('/metrics', async (req, res) => {
    if (config.metricsToken) {
      const given = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1] ?? '';
      if (!timingSafeEqual(digest(given), digest(config.metricsToken))) {
        res.status(401).set('WWW-Authenticate', 'Bearer').type('text').send('unauthorized');
        return;
      }
    } else if (config.env === 'production') {
      res.status(404).type('text').send('not found');
      return;
    }
    res.set('Cache-Control', 'no-store').type(registry.contentType).send(await registry.metrics());
  });
  return router;
}
