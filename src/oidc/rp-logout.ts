import type { Request } from 'express';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { isImpersonationSession } from '../admin/impersonation/impersonation.oidc.ts';
import type { Config } from '../config/index.ts';
import type { Context } from '../context.ts';
import { authCookieName, authCookieOptions } from '../http/cookies.ts';
import { loginCookie } from '../login/login-session.ts';
import { portalSessionId } from '../session/portal-cookie.ts';
import { destroyPortalSession } from '../session/portal-session.ts';
import { endLinkedProviderSessions } from './grants.ts';
import { logoutSource } from './pages.ts';

/**
 * RP-initiated logout ends the Nyckel session too (and the browser's sign-ins in progress), or
 * the next authorization would sign the person straight back in through it. Only "Yes, sign me
 * out" (logout=yes): the other answer signs the person out of the asking application alone, and
 * keeps Nyckel's session.
 * The event only notes the session; the middleware ends it before the answer goes out, so a store
 * that fails answers the logout with an error (503), never "signed out" while the Nyckel session
 * lives on. `ctx` is the provider's (its store fails closed).
 */
export function endNyckelSessionOnLogout(ctx: Context, provider: Provider): void {
  const portalSessionToEnd = new WeakMap<object, string>();
  provider.on('end_session.success', (koa: KoaContextWithOIDC) => {
    if (!koa.oidc.params?.logout) return;
    // Not a sign-out of Nyckel: ending a session an impersonation made in the operator's browser,
    // or oidc-provider ending the browser's provider session because an interaction finished for
    // another account (it then resumes that authorization, at its own /authorize/:uid).
    if (isImpersonationSession(koa.oidc.session) || resumesAuthorization(koa.oidc.session?.state, ctx.config.issuer)) return;
    const id = portalSessionId(ctx.config, koa.req as unknown as Request);
    if (id) portalSessionToEnd.set(koa, id);
  });
  provider.use(async (koa, next) => {
    await next();
    await askBeforeSigningOut(koa as KoaContextWithOIDC, ctx.config);
    const id = portalSessionToEnd.get(koa);
    if (!id) return;
    await endLinkedProviderSessions(ctx, provider, id);
    await destroyPortalSession(ctx, id);
    // As "Sign out" in the portal: the login cookie goes too, ending whatever sign-in another
    // tab still has in progress.
    const { maxAge: _maxAge, ...cookie } = authCookieOptions(ctx.config, 0);
    koa.cookies.set(authCookieName(ctx.config, loginCookie), null, { ...cookie, signed: false, overwrite: true });
  });
}

/** The logout oidc-provider runs itself before resuming an authorization at /authorize/:uid for another account. */
function resumesAuthorization(state: unknown, issuer: string): boolean {
  const target = (state as { postLogoutRedirectUri?: unknown } | undefined)?.postLogoutRedirectUri;
  return typeof target === 'string' && target.startsWith(`${issuer}/authorize/`);
}

/**
 * oidc-provider asks "sign out?" only when its session in the browser has an account; without one
 * it posts "yes" by itself, which would end the Nyckel session of a browser signed in at /login
 * alone, for any site that sends it to /oauth2/logout. With a Nyckel session cookie the person is
 * asked, as RP-Initiated Logout 1.0 section 2 has it, on the same form oidc-provider would show.
 */
async function askBeforeSigningOut(koa: KoaContextWithOIDC, config: Config): Promise<void> {
  // Koa's context: `oidc` is there only on oidc-provider's own routes.
  if ((koa.oidc as KoaContextWithOIDC['oidc'] | undefined)?.route !== 'end_session' || koa.status !== 200) return;
  const session = koa.oidc.session;
  const secret = (session?.state as { secret?: unknown } | undefined)?.secret;
  if (!session || session.accountId || typeof secret !== 'string' || !portalSessionId(config, koa.req as unknown as Request)) return;
  const action = koa.oidc.urlFor('end_session_confirm');
  await logoutSource(koa, `<form id="op.logoutForm" method="post" action="${action}"><input type="hidden" name="xsrf" value="${secret}"/></form>`);
}
