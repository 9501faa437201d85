import type Provider from 'oidc-provider';
import { linkedOidcSessions, type SessionContext } from '../session/portal-session.ts';

/**
 * Ends a grant: the grant itself first, then every token issued under it. In that order a token
 * request in flight under this grant finds the grant gone when it stores its tokens and is
 * refused (src/oidc/token-batch.ts); tokens first would let it store new ones after the sweep.
 */
export async function revokeGrant(provider: Provider, grantId: string): Promise<void> {
  const grant = await provider.Grant.find(grantId);
  if (grant) await grant.destroy();
  await provider.RefreshToken.revokeByGrantId(grantId);
  await provider.AccessToken.revokeByGrantId(grantId);
  await provider.AuthorizationCode.revokeByGrantId(grantId);
}

/**
 * "Yes, sign me out" at RP-initiated logout ends the browser's provider session (oidc-provider
 * does) and the Nyckel session. A Nyckel session may have signed in other provider sessions
 * before this one (the browser's provider cookie was replaced since: it ended with the browser, or
 * a sign-in for another account came between): their applications were signed in through the same
 * Nyckel sign-in, so they end as oidc-provider ends the current one's: each application's grant
 * revoked unless it has offline access (`persistsLogout`), then the session.
 */
export async function endLinkedProviderSessions(ctx: SessionContext, provider: Provider, portalSessionId: string): Promise<void> {
  for (const uid of await linkedOidcSessions(ctx, portalSessionId)) {
    const session = await provider.Session.findByUid(uid);
    if (!session) continue;
    for (const [clientId, { grantId }] of Object.entries(session.authorizations ?? {})) {
      if (grantId && !session.authorizationFor(clientId).persistsLogout) await revokeGrant(provider, grantId);
    }
    await session.destroy();
  }
}
