import { Router } from 'express';
import type { Context } from '../../context.ts';
import { requireOperator } from '../operator-guard.ts';
import { buildInvoice } from './invoice.service.ts';

export function createInvoiceRouter(ctx: Context): Router {
  const router = Router();
  router.get('/api/invoice/', requireOperator(ctx, 'support'), async (_req, res) => {
    res.json(await buildInvoice(ctx));
  });
  return router;
}
