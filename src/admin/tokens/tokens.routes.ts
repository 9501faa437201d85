import { Router } from 'express';
import type { Context } from '../../context.ts';
import { validate } from '../../http/validate.ts';
import { tokensParams } from '../admin.schemas.ts';
import { operatorOf, requireOperator } from '../operator-guard.ts';
import { listAccountTokens, tokensAccount } from './tokens.service.ts';

export function createTokensRouter(ctx: Context): Router {
  const router = Router();
  const support = requireOperator(ctx, 'support');
  router.get('/api/tokens/:account_id', support, validate({ params: tokensParams }), async (_req, res) => {
    res.json(await listAccountTokens(ctx, operatorOf(res), res.locals.params.account_id));
  });
  // The spec's answer above is a bare list; the tokens page asks here whose tokens they are.
  // Budgeted per operator and audited, as an account search (tokens.service.ts).
  router.get('/api/tokens/:account_id/account', support, validate({ params: tokensParams }), async (_req, res) => {
    res.json(await tokensAccount(ctx, operatorOf(res), res.locals.params.account_id));
  });
  return router;
}
