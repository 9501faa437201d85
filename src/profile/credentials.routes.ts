import { Router } from 'express';
import type { Context } from '../context.ts';
import { removeCredential } from './credential-removal.ts';
import { requireSignedIn } from './signed-in.ts';

/** The profile's credential management (portal session cookie; same-origin check on the api router). */
export function createCredentialsRouter(ctx: Context): Router {
  const router = Router();

  router.delete('/oauth2/userinfo/credentials/:id', async (req, res) => {
    const session = await requireSignedIn(ctx, req);
    await removeCredential(ctx, session, String(req.params.id), { ip: req.ip ?? null, userAgent: req.get('user-agent') ?? null });
    res.status(204).end();
  });

  return router;
}
