import type { Store } from '../store/store.ts';
import { CONSUMABLE, oidcKeys, parse } from './adapter.ts';

/**
 * The account's oidc-provider entries as the profile, the console and the sign-outs see them,
 * read through the indexes the adapter (adapter.ts) keeps: the account's, then each grant's.
 */
export interface AccountOidcEntry {
  /** Store key, `oidc:<Model>:<id>`. For opaque tokens the id is the token itself: never show it. */
  key: string;
  model: string;
  /** Seconds left. */
  ttl: number;
  clientId?: string;
  grantId?: string;
  /** The browser session's uid; for a Session entry, its own uid, so tokens group by session. */
  sessionUid?: string;
  kind?: string;
  /** A used code or rotated refresh token: listed only when asked for (`{ used: true }`). */
  used?: true;
}

/**
 * The account's live oidc-provider entries (sessions, grants, codes, tokens), for "sign out
 * everywhere" and operators' views. Sessions and grants are in the account's index; codes and
 * tokens in their grant's (they were in the account's too before, and such entries are still
 * read). A code or token whose grant is gone is not listed: oidc-provider refuses it already;
 * nor a used code or rotated refresh token.
 * Entries that expired, were destroyed, or now belong to another account (a session re-used for
 * a different login) are pruned from the account's index; a grant's index loses only entries
 * that are gone, since its revocation must find every token it names.
 *
 * `used`: list used codes and rotated refresh tokens too (marked `used`). A sign-out picks the
 * grants to revoke by the sessions their codes and tokens were issued in, and a refresh landing
 * while it reads may have used the only token it would otherwise have seen.
 */
export async function listAccountKeys(store: Store, accountId: string, options: { used?: boolean } = {}): Promise<AccountOidcEntry[]> {
  const indexKey = oidcKeys.account(accountId);
  const indexed = await store.smembers(indexKey);
  const seen = new Set(indexed);
  const direct = await Promise.all(indexed.map((key) => readEntry(store, key, accountId, { index: indexKey, pruneForeign: true, used: options.used === true })));
  const grantIds = direct.filter((entry) => entry?.model === 'Grant').map((entry) => entry!.key.slice(oidcKeys.model('Grant', '').length));
  const viaGrants = await Promise.all(
    grantIds.map(async (grantId) => {
      const grantKey = oidcKeys.grant(grantId);
      const members = (await store.smembers(grantKey)).filter((key) => {
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
      return Promise.all(members.map((key) => readEntry(store, key, accountId, { index: grantKey, pruneForeign: false, used: options.used === true })));
    }),
  );
  return [...direct, ...viaGrants.flat()].filter((entry) => entry !== undefined);
}

async function readEntry(
  store: Store,
  key: string,
  accountId: string,
  from: { index: string; pruneForeign: boolean; used: boolean },
): Promise<AccountOidcEntry | undefined> {
  const model = key.split(':')[1] ?? '';
  const [stored, ttl, consumed] = await Promise.all([
    store.get(key),
    store.ttl(key),
    CONSUMABLE.has(model) ? store.get(oidcKeys.consumed(key)) : null,
  ]);
  const payload = parse(stored);
  const gone = !payload || ttl === null;
  if (gone || payload.accountId !== accountId) {
    if (gone || from.pruneForeign) await store.srem(from.index, key);
    return undefined;
  }
  // A used code, or a refresh token that was rotated, can never be used again: not live, though
  // its payload stays until its TTL (and in its grant's index, for the revocation a replay of it
  // brings). Each refresh would otherwise add one more "live" refresh token to the listing.
  if (consumed !== null && !from.used) return undefined;
  const sessionUid = payload.sessionUid ?? (model === 'Session' ? payload.uid : undefined);
  return {
    key,
    model,
    ttl,
    ...(payload.clientId !== undefined && { clientId: payload.clientId }),
    ...(payload.grantId !== undefined && { grantId: payload.grantId }),
    ...(sessionUid !== undefined && { sessionUid }),
    ...(payload.kind !== undefined && { kind: payload.kind }),
    ...(consumed !== null && { used: true as const }),
  };
}
