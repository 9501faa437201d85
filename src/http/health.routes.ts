import { Router } from 'express';
import type { Context } from '../context.ts';

/** /healthz: the process answers. /readyz: it can reach PostgreSQL and the store. */
export function createHealthRouter(ctx: Pick<Context, 'db' | 'store'>): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const [database, store] = await Promise.all([
      withTimeout(ctx.db.raw('select 1')),
      withTimeout(ctx.store.ping()),
    ]);
    const ready = database && store;
    res.status(ready ? 200 : 503).json({
      status: ready ? 'ok' : 'unavailable',
      checks: { database: database ? 'ok' : 'unavailable', store: store ? 'ok' : 'unavailable' },
    });
  });
  return router;
}

async function withTimeout(check: PromiseLike<unknown>, ms = 2000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([Promise.resolve(check).then(() => true, () => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
