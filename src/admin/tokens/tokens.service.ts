import { createHash } from 'node:crypto';
import { findAccountById } from '../../accounts/accounts.repository.ts';
import type { Context } from '../../context.ts';
import { errors } from '../../http/app-error.ts';
import { listAccountKeys } from '../../oidc/account-keys.ts';
import { listPortalSessions } from '../../session/portal-session.ts';
import { secondsLeft } from '../../session/session-deadlines.ts';
import { recordOperatorAction } from '../operator-audit.ts';
import type { Operator } from '../operator-guard.ts';

/** The spec's Token (key, ttl in seconds), plus what the entry is and for which client. */
export interface TokenListing {
  /** `<Model>:<12 hex of SHA-256 of the store key>`: tells entries apart, reveals nothing usable. */
  key: string;
  ttl: number;
  model: string;
  client_id: string | null;
}

/**
 * A label for a store key. The key of an opaque token (`oidc:AccessToken:<id>`) and of a portal
 * session (`session:<id>`) contains the bearer secret itself, so operators never see keys: only
 * the model and a short one-way hash, stable across calls so rows can be compared.
 */
export function tokenLabel(model: string, storeKey: string): string {
  return `${model}:${createHash('sha256').update(storeKey).digest('hex').slice(0, 12)}`;
}

/**
 * The account's live store entries: oidc-provider's sessions, grants, codes and tokens, and the
 * portal's sign-in sessions. Longest-lived first. Viewing is audited.
 */
export async function listAccountTokens(ctx: Context, operator: Operator, accountId: string): Promise<TokenListing[]> {
  const account = await findAccountById(ctx.db, accountId);
  if (!account) throw errors.notFound();
  const [oidcEntries, portalSessions] = await Promise.all([listAccountKeys(ctx.store, accountId), listPortalSessions(ctx, accountId)]);
  const listings: TokenListing[] = oidcEntries.map((entry) => ({
    key: tokenLabel(entry.model, entry.key),
    ttl: entry.ttl,
    model: entry.model,
    client_id: entry.clientId ?? null,
  }));
  for (const session of portalSessions) {
    // The store key of portal sessions (src/session/portal-session.ts). Its TTL in the store is the
    // 12 h cap; a session without "remember me" ends sooner when left idle, which is what is shown.
    const storeKey = `session:${session.id}`;
    listings.push({ key: tokenLabel('PortalSession', storeKey), ttl: secondsLeft(ctx, session), model: 'PortalSession', client_id: null });
  }
  listings.sort((a, b) => b.ttl - a.ttl || a.key.localeCompare(b.key));
  await recordOperatorAction(
    ctx.db,
    operator,
    { action: 'operator.tokens.viewed', target_account_id: accountId, details: { count: listings.length } },
    ctx.now(),
  );
  return listings;
}
