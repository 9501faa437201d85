import type { Request } from 'express';
import { interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';
import { isImpersonationSession } from '../admin/impersonation/impersonation.oidc.ts';
import type { Context } from '../context.ts';
import { portalSessionId } from '../session/portal-cookie.ts';
import { getPortalSessionById, linkSigningIn, signingInSession } from '../session/portal-session.ts';
import { acrOf } from './acr.ts';

type CheckContext = Pick<Context, 'store' | 'config' | 'now'>;

/** The login reason when the provider session in this browser no longer agrees with the Nyckel session. */
export const portalSessionReason = 'nyckel_session_changed';

/** Where the interaction's result names the Nyckel session that answered its login: `{ portal: <id> }`. */
export const nyckelResultKey = 'nyckel';

/**
 * The Nyckel (portal) session is the sign-in; oidc-provider's own session only remembers it for
 * the authorization endpoint. Once the portal session that signed the provider session in has
 * ended (signed out, expired, or replaced by another account's sign-in at /login, which ends the
 * browser's previous portal session), the provider session must not answer an authorization by
 * itself: the login prompt is requested, and the interaction route answers it from the browser's
 * current portal session, or with /login. prompt=none then answers login_required.
 *
 * The portal session is found through the link recordSigningIn() wrote, never through the portal
 * cookie: that cookie is SameSite=Lax, so a relying party's cross-site POST to /authorize or a
 * silent renew in an iframe carries only the provider cookie (SameSite=None).
 *
 * Impersonation sessions have their own reason (impersonation.oidc.ts) and are left to it.
 */
export function portalSessionCheck(ctx: CheckContext): interactionPolicy.Check {
  const description = 'the Nyckel session in this browser ended or changed account';
  // Checks added to a prompt after it is built get no default error: prompt=none must say login_required.
  return new interactionPolicy.Check(portalSessionReason, description, 'login_required', async (koa: KoaContextWithOIDC) => {
    const result = koa.oidc.result as (NonNullable<typeof koa.oidc.result> & { [nyckelResultKey]?: { portal?: string } }) | undefined;
    if (result?.login) {
      // The interaction that just finished is the answer while the Nyckel session that gave it
      // lives: its resume, opened after a sign-out or the idle timeout (the Back button on a
      // shared computer), signs no one in. An impersonation's result names none.
      const portalId = result[nyckelResultKey]?.portal;
      if (!portalId) return false;
      return (await getPortalSessionById(ctx, portalId))?.account_id !== result.login.accountId;
    }
    const session = koa.oidc.session;
    if (!session?.accountId || isImpersonationSession(session)) return false;
    const portalId = await signingInSession(ctx, session.uid);
    const portal = portalId ? await getPortalSessionById(ctx, portalId) : null;
    if (portal?.account_id !== session.accountId) return true;
    raiseToPortalSession(session, portal.amr);
    return false;
  });
}

/**
 * The Nyckel session proved more since it signed the provider session in (an authenticator app
 * turned on in it: raisePortalSession): the provider session's amr and acr say so too, so the
 * applications it answers see the level the person reached, as a new sign-in would show it. The
 * sign-in time stays. Saved with the request (touched), like any change oidc-provider makes.
 */
function raiseToPortalSession(session: NonNullable<KoaContextWithOIDC['oidc']['session']>, portalAmr: readonly string[]): void {
  const current = session.amr ?? [];
  if (portalAmr.every((method) => current.includes(method))) return;
  const amr = [...new Set([...current, ...portalAmr])];
  Object.assign(session, { amr, acr: acrOf(amr), touched: true });
}

/**
 * oidc-provider middleware: when an authorization resumes with a login from the interaction
 * route, records which portal session signed the provider session in. The resume is the
 * browser's top-level, same-site navigation back from /auth/interaction/:uid/finish, so the
 * portal cookie is there; it counts only when it is the account's that just signed in.
 */
export function recordSigningIn(ctx: CheckContext) {
  return async (koa: KoaContextWithOIDC, next: () => Promise<void>) => {
    await next();
    if (koa.oidc?.route !== 'resume' || !koa.oidc.result?.login) return;
    const session = koa.oidc.session;
    if (!session?.accountId || isImpersonationSession(session)) return;
    const id = portalSessionId(ctx.config, koa.req as unknown as Request);
    const portal = id ? await getPortalSessionById(ctx, id) : null;
    if (portal?.account_id === session.accountId) await linkSigningIn(ctx, session.uid, portal.id);
  };
}

