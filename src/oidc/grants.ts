import type Provider from 'oidc-provider';
import type { AccountOidcEntry } from './account-keys.ts';
import { oidcKeys } from './adapter.ts';
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

/** What a grant issues in a browser session: its codes and tokens (sessionUid). */
const grantedModels = new Set(['AuthorizationCode', 'AccessToken', 'RefreshToken']);

/**
 * Every grant of the account, with the OP sessions its codes and tokens were issued in (used ones
 * included: listAccountKeys with `used`). A grant whose code is not exchanged yet, or whose only
 * refresh token was rotated a moment ago, is one all the same: missed, it would outlive a sign-out
 * (the code exchanged afterwards, a 14-day refresh token with it).
 */
function grantsToEnd(entries: readonly AccountOidcEntry[]): Map<string, Set<string>> {
  const grants = new Map<string, Set<string>>();
  const of = (grantId: string) => grants.get(grantId) ?? grants.set(grantId, new Set()).get(grantId)!;
  for (const entry of entries) {
    if (entry.model === 'Grant') of(entry.key.slice(oidcKeys.model('Grant', '').length));
    else if (grantedModels.has(entry.model) && entry.grantId) {
      const uids = of(entry.grantId);
      if (entry.sessionUid) uids.add(entry.sessionUid);
    }
  }
  return grants;
}

/** Revokes the grants and ends the OP sessions of this account's index that `ends` picks; returns the number of grants. */
export async function endOidc(
  provider: Provider,
  entries: readonly AccountOidcEntry[],
  ends: { grant: (sessionUids: ReadonlySet<string>) => boolean; session: (uid: string) => boolean },
): Promise<number> {
  const grants = [...grantsToEnd(entries)].filter(([, sessionUids]) => ends.grant(sessionUids));
  for (const [grantId] of grants) await revokeGrant(provider, grantId);
  for (const entry of entries) {
    if (entry.model !== 'Session' || !entry.sessionUid || !ends.session(entry.sessionUid)) continue;
    const op = await provider.Session.find(entry.key.slice('oidc:Session:'.length));
    if (op) await op.destroy();
  }
  return grants.length;
}
