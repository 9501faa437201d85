import { Router } from 'express';
import type { Context } from '../context.ts';
import { findAccountById } from '../accounts/accounts.repository.ts';
import { listCredentials, summarizeCredentials } from '../credentials/credentials.repository.ts';
import { errors } from '../http/app-error.ts';
import { getPortalSession } from '../session/portal-session.ts';

/**
 * GET /oauth2/userinfo for the portal: a request carrying the Nyckel session cookie and no bearer
 * token gets the profile shape of the spec. Requests with a bearer token never reach this router
 * (see app.ts) and get oidc-provider's standard userinfo.
 */
export function createUserinfoRouter(ctx: Context): Router {
  const router = Router();
  router.get('/oauth2/userinfo', async (req, res) => {
    const session = await getPortalSession(ctx, req);
    const account = session ? await findAccountById(ctx.db, session.account_id) : undefined;
    if (!account) {
      // Also what a relying party sees that forgot its access token: RFC 6750 section 3's
      // challenge (no error code, since no token was sent), beside the portal's error body.
      res.set('WWW-Authenticate', `Bearer realm="${ctx.config.issuer}"`);
      throw errors.unauthorized();
    }
    const credentials = await listCredentials(ctx.db, account.id);
    res.json({
      id: account.id,
      name: account.name,
      email: account.email,
      locale: account.locale,
      profile_picture: account.image,
      available_credentials: summarizeCredentials(credentials),
      is_user: account.is_user,
      is_stakeholder: account.is_stakeholder,
    });
  });
  return router;
}
