import type { Request } from 'express';
import { interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';
import { isImpersonationSession } from '../admin/impersonation/impersonation.oidc.ts';
import type { Context } from '../context.ts';
import { getPortalSession } from '../session/portal-session.ts';

/** The login reason when the provider session in this browser no longer agrees with the Nyckel session. */
export const portalSessionReason = 'nyckel_session_changed';

/**
 * The Nyckel (portal) session is the sign-in; oidc-provider's own session only remembers it for
 * the authorization endpoint. When the portal session has ended (signed out, expired, or a
 * browser-session cookie gone with the browser) or another account signed in at /login since,
 * the provider session must not answer an authorization by itself: the login prompt is requested,
 * and the interaction route answers it from the portal session, or with /login. prompt=none then
 * answers login_required.
 *
 * Impersonation sessions have their own reason (impersonation.oidc.ts) and are left to it.
 */
export function portalSessionCheck(ctx: Pick<Context, 'store' | 'config' | 'now'>): interactionPolicy.Check {
  const description = 'the Nyckel session in this browser ended or changed account';
  // Checks added to a prompt after it is built get no default error: prompt=none must say login_required.
  return new interactionPolicy.Check(portalSessionReason, description, 'login_required', async (koa: KoaContextWithOIDC) => {
    // The interaction that just finished is the answer; the provider session is the portal session's.
    if (koa.oidc.result?.login) return false;
    const accountId = koa.oidc.session?.accountId;
    if (!accountId || isImpersonationSession(koa.oidc.session)) return false;
    const portal = await getPortalSession(ctx, koa.req as unknown as Request);
    return portal?.account_id !== accountId;
  });
}
