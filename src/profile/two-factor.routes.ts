import { Router, type Request } from 'express';
import { z } from 'zod';
import type { Context } from '../context.ts';
import { limitByIp, rateLimitsFor } from '../http/rate-limit.ts';
import { parse } from '../http/validate.ts';
import { deviceCookieId } from '../login/remembered-device.ts';
import { setPortalSessionCookie } from '../session/portal-session.ts';
import { requireJsonBody } from './json-body.ts';
import { requireSignedIn } from './signed-in.ts';
import { activateEnrolment, enrolmentQrCode, listDevices, revokeDevice, startEnrolment, type ClientInfo } from './two-factor.service.ts';

/** An empty or missing code is the service's `totp/required`, not a validation error. */
const activateBody = z.object({ totp_code: z.string().max(64).nullish() });

/**
 * TOTP enrolment and remembered devices for a signed-in person (portal session cookie; 401
 * `unauthorized` without one). Mounted on the api router: JSON, no-store, same-origin check.
 * Enrolment spends the per-IP budget of the sign-in calls (429 `too_many_requests`): each call
 * stores a secret, draws a QR code, or writes a credential and mails a notice, which a person does
 * a few times, never hundreds of times a quarter hour. The POST spends before the session is read
 * (the same-origin check has refused other sites already); the GETs after.
 */
export function createTwoFactorRouter(ctx: Context): Router {
  const router = Router();
  const limited = limitByIp(ctx);
  const info = (req: Request): ClientInfo => ({ ip: req.ip ?? null, userAgent: req.get('user-agent') ?? null });

  // The GETs check the session before they spend: another site's <img> of them carries no
  // SameSite=Lax cookie and must not spend the budget everyone behind the address signs in with.
  const signedInThenLimited = async (req: Request) => {
    const session = await requireSignedIn(ctx, req);
    await rateLimitsFor(ctx).consume('ip', req.ip ?? 'unknown');
    return session;
  };

  router.get('/auth/tfa/setup', async (req, res) => {
    res.json(await startEnrolment(ctx, await signedInThenLimited(req)));
  });

  router.get('/auth/qrcode', async (req, res) => {
    const png = await enrolmentQrCode(ctx, await signedInThenLimited(req));
    res.set('Cache-Control', 'no-store').type('image/png').send(png);
  });

  router.post('/auth/tfa/activate', limited, requireJsonBody, async (req, res) => {
    const session = await requireSignedIn(ctx, req);
    const { totp_code } = parse(activateBody, req.body ?? {});
    const activated = await activateEnrolment(ctx, session, totp_code, info(req));
    // The session proved the authenticator and goes on under a new id (raisePortalSession).
    if (activated.session && activated.session.id !== session.id) {
      setPortalSessionCookie(res, ctx.config, activated.session.id, activated.session.persistent === true);
    }
    res.json(activated.credential);
  });

  router.get('/auth/tfa/devices', async (req, res) => {
    res.json(await listDevices(ctx, await requireSignedIn(ctx, req), deviceCookieId(req, ctx.config)));
  });

  router.delete('/auth/tfa/devices/:id', async (req, res) => {
    const session = await requireSignedIn(ctx, req);
    await revokeDevice(ctx, session, String(req.params.id), info(req));
    res.status(204).end();
  });

  return router;
}
