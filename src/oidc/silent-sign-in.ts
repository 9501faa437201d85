import type { Request } from 'express';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { isImpersonationSession } from '../admin/impersonation/impersonation.oidc.ts';
import type { Context } from '../context.ts';
import { getPortalSession, linkOidcSession, linkSigningIn, signingInSession } from '../session/portal-session.ts';
import { acrOf } from './acr.ts';

type SilentContext = Pick<Context, 'store' | 'config' | 'now'>;

/**
 * Provider sessions one Nyckel session may sign in silently per minute. Each is a new provider
 * session with its own grant, code and index entries: a page that renews silently where the
 * provider cookie never arrives (a browser blocking it in frames) would otherwise make one per
 * renew without end, and the account's session list reads them all. A renewing application needs
 * one a minute at most; past the budget the request answers login_required, as without a session.
 */
export const silentSignInsPerMinute = 30;
const silentSignIns = (portalId: string) => `silent-sign-ins:${portalId}`;

/**
 * prompt=none from a browser signed in to Nyckel but not to oidc-provider. A sign-in at /login
 * without an application (the tenant picker, the profile) makes a Nyckel session and no provider
 * session, and oidc-provider answers prompt=none with login_required before any interaction
 * could find the Nyckel session: a tenant app opened from the tenant picker, checking silently
 * first, would see an anonymous visitor. An interactive request goes through the interaction
 * route, which signs the provider session in from the Nyckel session without showing a page
 * (interaction.routes.ts); a silent one may not be sent anywhere, so the provider session is
 * signed in here, as that route does it: the Nyckel session's account, sign-in time, amr and acr,
 * forgotten with the browser when the sign-in was not remembered, and linked to the Nyckel
 * session (portalSessionCheck and the profile's session list then see it as that session's).
 * oidc-provider saves it and sets its cookie as for any sign-in, and its own checks (max_age,
 * id_token_hint) then run against it as against any other.
 *
 * Only GET /authorize with prompt=none for a registered client and redirect URI, and only when
 * the browser's provider session has no account, or has the same one but was signed in by an
 * earlier Nyckel session of this browser (the person signed in again at /login since). The Nyckel cookie is SameSite=Lax: a cross-site
 * frame never carries it, so this never signs anyone in where an interactive request would not.
 */
export function signInSilentRequests(ctx: SilentContext, provider: Provider): void {
  const Session = provider.Session as unknown as { get(koa: KoaContextWithOIDC): Promise<InstanceType<Provider['Session']>> };
  const get = Session.get.bind(Session);
  Session.get = async (koa) => {
    const session = await get(koa);
    if (!isSilentAuthorization(koa) || !(await isForRegisteredRedirect(provider, koa))) return session;
    const portal = await getPortalSession(ctx, koa.req as unknown as Request);
    if (!portal) return session;
    if (session.accountId) {
      // Signed in already: as the Nyckel session says (nothing to do), or as another account
      // (portalSessionCheck answers login_required: a silent request never switches accounts).
      if (session.accountId !== portal.account_id || (await signingInSession(ctx, session.uid)) === portal.id) return session;
      // The same person signed in again at /login since (the console's or the profile's
      // re-sign-in): the provider session takes the new sign-in, as an interaction would give it.
    }
    if ((await ctx.store.incr(silentSignIns(portal.id), 60)) > silentSignInsPerMinute) return session;
    session.loginAccount({
      accountId: portal.account_id,
      loginTs: portal.auth_time,
      amr: portal.amr,
      acr: acrOf(portal.amr),
      transient: portal.persistent !== true,
    });
    // A sign-in gets a new session id, as oidc-provider's own gives one (resume.js): a provider
    // cookie planted in this browser beforehand (from a sibling subdomain, say) must not become
    // the signed-in session its planter also holds. A new session is saved, and its cookie set,
    // only once touched.
    if (!(session as unknown as { new?: boolean }).new) session.resetIdentifier();
    (session as unknown as { touched: boolean }).touched = true;
    await Promise.all([linkSigningIn(ctx, session.uid, portal.id), linkOidcSession(ctx, portal.id, session.uid)]);
    return session;
  };
}

/** GET /authorize with prompt=none (among its values); oidc-provider parses the parameters only later. */
function isSilentAuthorization(koa: KoaContextWithOIDC): boolean {
  if (koa.oidc?.route !== 'authorization' || koa.method !== 'GET') return false;
  const prompt = koa.query.prompt;
  return typeof prompt === 'string' && prompt.split(' ').includes('none');
}

/**
 * The request names a registered client and one of its redirect URIs. oidc-provider validates the
 * request only after loading the session: without this, any prompt=none URL (an unknown client, a
 * stranger's redirect URI) would sign a provider session in and set its cookie, though the answer
 * is an error page. A request that passes may still fail later checks (PKCE, scope), as an
 * interactive one may after its sign-in.
 */
async function isForRegisteredRedirect(provider: Provider, koa: KoaContextWithOIDC): Promise<boolean> {
  const { client_id: clientId, redirect_uri: redirectUri } = koa.query;
  if (typeof clientId !== 'string' || typeof redirectUri !== 'string') return false;
  const client = await provider.Client.find(clientId).catch(() => undefined);
  return client?.redirectUriAllowed(redirectUri) === true;
}

/**
 * oidc-provider's loadExistingGrant. For a silent request, also what the interaction route grants
 * every (first-party) client without a screen: the scopes and claims it asks for. Without this,
 * prompt=none for an application the person has not opened in this provider session, or with a
 * scope it has not had before, answers consent_required, though no consent would ever be shown.
 * Interactive requests keep oidc-provider's default: their interaction grants the same.
 */
export async function loadExistingGrant(koa: KoaContextWithOIDC) {
  const { oidc } = koa;
  const clientId = oidc.client!.clientId;
  const grantId = oidc.result?.consent?.grantId ?? oidc.session!.grantIdFor(clientId);
  const existing = grantId ? await oidc.provider.Grant.find(grantId) : undefined;
  if (!String(oidc.params?.prompt ?? '').split(' ').includes('none') || !oidc.session?.accountId) return existing;
  // An operator's impersonation is held to what its hand-off granted.
  if (isImpersonationSession(oidc.session)) return existing;
  if (existing && existing.accountId !== oidc.session.accountId) return existing;
  const grant = existing ?? new oidc.provider.Grant({ accountId: oidc.session.accountId, clientId });
  const granted = new Set(grant.getOIDCScope().split(' '));
  const missing = [...oidc.requestParamOIDCScopes].filter((scope) => !granted.has(scope));
  const claims = new Set(grant.getOIDCClaimsEncountered());
  const missingClaims = [...oidc.requestParamClaims].filter((claim) => !claims.has(claim));
  if (existing && missing.length === 0 && missingClaims.length === 0) return existing;
  if (missing.length > 0) grant.addOIDCScope(missing.join(' '));
  if (missingClaims.length > 0) grant.addOIDCClaims(missingClaims);
  await grant.save();
  return grant;
}
