import { Router, type Request } from 'express';
import type Provider from 'oidc-provider';
import { z } from 'zod';
import type { Context } from '../context.ts';
import { registrationResponseSchema } from '../credentials/webauthn/webauthn.schemas.ts';
import { limitByIp } from '../http/rate-limit.ts';
import { setKnownBrowserCookie } from '../login/known-browser.ts';
import { parse } from '../http/validate.ts';
import { requireJsonBody } from './json-body.ts';
import { finishPasskeyRegistration, listAccountPasskeys, removePasskey, startPasskeyRegistration } from './passkeys.service.ts';
import { passkeyNameSchema } from './profile.schemas.ts';
import { sessionRequest, thisBrowser } from './request-info.ts';
import { requireSignedIn } from './signed-in.ts';
import type { ClientInfo } from './two-factor.service.ts';

const verifyBody = z.object({ response: registrationResponseSchema, name: passkeyNameSchema.nullish() });

/**
 * The signed-in person's passkeys (portal session cookie; 401 `unauthorized` without one).
 * Mounted on the api router: JSON, no-store, same-origin check on the state-changing calls.
 * Registration spends the per-IP budget of the sign-in calls (429 `too_many_requests`), as TOTP
 * enrolment does (two-factor.routes.ts).
 */
export function createPasskeysRouter(ctx: Context, provider: Provider): Router {
  const router = Router();
  const limited = limitByIp(ctx);
  const info = (req: Request): ClientInfo => ({ ip: req.ip ?? null, userAgent: req.get('user-agent') ?? null });

  router.get('/auth/passkeys', async (req, res) => {
    res.json(await listAccountPasskeys(ctx, await requireSignedIn(ctx, req)));
  });

  router.post('/auth/passkeys/options', limited, requireJsonBody, async (req, res) => {
    res.json(await startPasskeyRegistration(ctx, await requireSignedIn(ctx, req)));
  });

  router.post('/auth/passkeys/verify', limited, requireJsonBody, async (req, res) => {
    const session = await requireSignedIn(ctx, req);
    const { response, name } = parse(verifyBody, req.body ?? {});
    res.status(201).json(await finishPasskeyRegistration(ctx, session, { response, name: name ?? undefined }, info(req)));
  });

  router.delete('/auth/passkeys/:id', async (req, res) => {
    const session = await requireSignedIn(ctx, req);
    const { knownBrowser } = await removePasskey(ctx, provider, { ...sessionRequest(req, session, ctx.config), ...thisBrowser(req, ctx.config) }, String(req.params.id));
    if (knownBrowser) setKnownBrowserCookie(res, ctx.config, knownBrowser);
    res.status(204).end();
  });

  return router;
}
