import { Router } from 'express';
import type Provider from 'oidc-provider';
import type { Context } from '../context.ts';
import { setKnownBrowserCookie } from '../login/known-browser.ts';
import { removeCredential } from './credential-removal.ts';
import { sessionRequest, thisBrowser } from './request-info.ts';
import { requireSignedIn } from './signed-in.ts';

/** The profile's credential management (portal session cookie; same-origin check on the api router). */
export function createCredentialsRouter(ctx: Context, provider: Provider): Router {
  const router = Router();

  router.delete('/oauth2/userinfo/credentials/:id', async (req, res) => {
    const session = await requireSignedIn(ctx, req);
    const request = { ...sessionRequest(req, session, ctx.config), ...thisBrowser(req, ctx.config) };
    const { knownBrowser } = await removeCredential(ctx, provider, request, String(req.params.id));
    if (knownBrowser) setKnownBrowserCookie(res, ctx.config, knownBrowser);
    res.status(204).end();
  });

  return router;
}
