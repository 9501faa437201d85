import { Router } from 'express';
import type { Context } from '../../context.ts';
import { validate } from '../../http/validate.ts';
import { tokensParams } from '../admin.schemas.ts';
import { operatorOf, requireOperator } from '../operator-guard.ts';
import { listAccountTokens } from './tokens.service.ts';

export function createTokensRouter(ctx: Context): Router {
  const router = Router();
  router.get('/api/tokens/:account_id', requireOperator(ctx, 'support'), validate({ params: tokensParams }), async (_req, res) => {
    res.json(await listAccountTokens(ctx, operatorOf(res), res.locals.params.account_id));
  });
  return router;
}
