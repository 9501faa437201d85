import { Router, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import type { Context } from '../context.ts';
import { authenticationResponseSchema } from '../credentials/webauthn/webauthn.schemas.ts';
import { validate } from '../http/validate.ts';
import type { LoginOutcome, RequestInfo } from './login-finish.ts';
import { sessionIdSchema, sessionOnlyBody } from './login.schemas.ts';
import type { SessionRef } from './login.service.ts';
import { passkeySignInOptions, verifyPasskeySignIn } from './passkey-login.service.ts';

const verifyBody = z.object({ session_id: sessionIdSchema, response: authenticationResponseSchema });

/** What the sign-in router shares with this one: its rate limit, request info, session ref and Done answer. */
export interface LoginRouteKit {
  limited: RequestHandler;
  info: (req: Request) => RequestInfo;
  ref: (req: Request, res: Response) => SessionRef;
  send: (res: Response, outcome: LoginOutcome) => void;
}

/** Passkey sign-in in CredentialsRequired; mounted by the sign-in router (login.routes.ts). */
export function createPasskeyLoginRouter(ctx: Context, kit: LoginRouteKit): Router {
  const router = Router();

  router.post('/auth/login/passkey/options', kit.limited, validate({ body: sessionOnlyBody }), async (req, res) => {
    res.json(await passkeySignInOptions(ctx, kit.ref(req, res), kit.info(req)));
  });

  router.post('/auth/login/passkey/verify', kit.limited, validate({ body: verifyBody }), async (req, res) => {
    kit.send(res, await verifyPasskeySignIn(ctx, kit.ref(req, res), res.locals.body.response, kit.info(req)));
  });

  return router;
}
