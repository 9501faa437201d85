import { Router } from 'express';
import type Provider from 'oidc-provider';
import type { Context } from '../../context.ts';
import { validate } from '../../http/validate.ts';
import { tokensParams, tokensSessionParams } from '../admin.schemas.ts';
import { operatorOf, requireOperator } from '../operator-guard.ts';
import { endAccountSession } from './session-end.service.ts';
import { listAccountTokens, tokensAccount } from './tokens.service.ts';

/** The console's tokens view of one account: its live entries, whose they are, and ending one of its sessions. */
export function createTokensRouter(ctx: Context, provider: Provider): Router {
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
  // Support, as "Sign out everywhere" (accounts.routes.ts), of which this is one session's worth:
  // it only ends access. An operator's account needs an admin (session-end.service.ts).
  router.delete('/api/tokens/:account_id/sessions/:key', support, validate({ params: tokensSessionParams }), async (_req, res) => {
    const { account_id: accountId, key } = res.locals.params;
    const { applications } = await endAccountSession(ctx, provider, operatorOf(res), accountId, key);
    res.json({ status: 'signed_out', applications });
  });
  return router;
}
