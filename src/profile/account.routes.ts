import { Router } from 'express';
import type Provider from 'oidc-provider';
import type { Context } from '../context.ts';
import { parse } from '../http/validate.ts';
import { saveSetting } from './account-settings.service.ts';
import { listActivity } from './activity.service.ts';
import { requireJsonBody } from './json-body.ts';
import { setKnownBrowserCookie } from '../login/known-browser.ts';
import { changePassword, sendPasswordSetupLink } from './password.service.ts';
import { changePasswordBody, settingBody } from './profile.schemas.ts';
import { clientInfo, sessionRequest, thisBrowser } from './request-info.ts';
import { requireSignedIn } from './signed-in.ts';

/**
 * The signed-in person's own account (portal session cookie; 401 `unauthorized` without one):
 * settings, password, recent activity. Mounted on the api router: JSON, no-store, same-origin
 * check; POSTs must also be JSON (requireJsonBody).
 */
export function createAccountRouter(ctx: Context, provider: Provider): Router {
  const router = Router();

  router.post('/api/accounts/settings', requireJsonBody, async (req, res) => {
    const session = await requireSignedIn(ctx, req);
    res.json(await saveSetting(ctx, session, parse(settingBody, req.body ?? {}), clientInfo(req)));
  });

  router.get('/api/accounts/activity', async (req, res) => {
    const session = await requireSignedIn(ctx, req);
    res.json(await listActivity(ctx, session.account_id));
  });

  router.post('/api/accounts/password', requireJsonBody, async (req, res) => {
    const session = await requireSignedIn(ctx, req);
    const input = parse(changePasswordBody, req.body ?? {});
    const { knownBrowser, ...answer } = await changePassword(ctx, provider, { ...sessionRequest(req, session, ctx.config), ...thisBrowser(req, ctx.config) }, input);
    if (knownBrowser) setKnownBrowserCookie(res, ctx.config, knownBrowser);
    res.json(answer);
  });

  router.post('/api/accounts/password/setup-link', requireJsonBody, async (req, res) => {
    const session = await requireSignedIn(ctx, req);
    await sendPasswordSetupLink(ctx, sessionRequest(req, session, ctx.config));
    res.status(202).json({ status: 'accepted' });
  });

  return router;
}
