import { Router } from 'express';
import type { Context } from '../context.ts';
import { operatorOf, requireOperator } from './operator-guard.ts';

/** Who is using the console: lets the UI hide what the role may not do (the API refuses it anyway). */
export function createOperatorRouter(ctx: Context): Router {
  const router = Router();
  router.get('/api/operator', requireOperator(ctx, 'support'), (_req, res) => {
    const { account_id, email, role } = operatorOf(res);
    res.json({ id: account_id, email, role });
  });
  return router;
}
