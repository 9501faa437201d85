import { createHash } from 'node:crypto';
import { findAccountById } from '../../accounts/accounts.repository.ts';
import type { Context } from '../../context.ts';
import { errors } from '../../http/app-error.ts';
import { listAccountKeys, type AccountOidcEntry } from '../../oidc/account-keys.ts';
import { parse } from '../../oidc/adapter.ts';
import { linkedOidcSessions, listPortalSessions, signingInSession, type PortalSessionWithId } from '../../session/portal-session.ts';
import { secondsLeft } from '../../session/session-deadlines.ts';
import { spendSearch } from '../accounts/action-limits.ts';
import { recordOperatorAction } from '../operator-audit.ts';
import type { Operator } from '../operator-guard.ts';
import { describeSession, noSession, type SessionFacts } from './token-sessions.ts';

/**
 * The spec's Token (key, ttl in seconds), plus what the entry is and for which client, and for
 * a sign-in session (Session, PortalSession) what tells one browser's from another's.
 */
export interface TokenListing extends SessionFacts {
  /** `<Model>:<12 hex of SHA-256 of the store key>`: tells entries apart, reveals nothing usable. */
  key: string;
  ttl: number;
  model: string;
  client_id: string | null;
}

/** The account a tokens view is about, as the database has it now. */
export interface TokensAccount {
  id: string;
  email: string;
}

/**
 * A label for a store key. The key of an opaque token (`oidc:AccessToken:<id>`) and of a portal
 * session (`session:<id>`) contains the bearer secret itself, so operators never see keys: only
 * the model and a short one-way hash, stable across calls so rows can be compared.
 */
export function tokenLabel(model: string, storeKey: string): string {
  return `${model}:${createHash('sha256').update(storeKey).digest('hex').slice(0, 12)}`;
}

/** The label of a portal session, from its store key (`session:<id>`, src/session/portal-session.ts). */
export function portalSessionLabel(id: string): string {
  return tokenLabel('PortalSession', `session:${id}`);
}

/**
 * GET /api/tokens/{account_id}/account: whose tokens the page shows, never the address in its URL.
 * It answers any account's address by its id, so it is a read of that account as a search is: a
 * point of the operator's search budget (action-limits.ts; an unknown id's 404 costs nothing, a
 * 429 answers nothing) and an `operator.account.viewed` row naming the account, as a view of its
 * tokens is. The tokens page calls this and the list together: two points, two rows.
 */
export async function tokensAccount(ctx: Context, operator: Operator, accountId: string): Promise<TokensAccount> {
  const account = await findAccountById(ctx.db, accountId);
  if (!account) throw errors.notFound();
  await spendSearch(ctx, operator);
  await recordOperatorAction(
    ctx.db,
    operator,
    { action: 'operator.account.viewed', target_account_id: account.id, details: { read: 'email' } },
    ctx.now(),
  );
  return { id: account.id, email: account.email };
}

/**
 * The account's live store entries: oidc-provider's sessions, grants, codes and tokens, and the
 * portal's sign-in sessions. Longest-lived first. Viewing is audited, and spends a point of the
 * operator's search budget, as the address beside it does: it answers any account's sessions
 * (addresses, browsers, sign-in times) by its id, which a script could otherwise walk.
 */
export async function listAccountTokens(ctx: Context, operator: Operator, accountId: string): Promise<TokenListing[]> {
  const account = await findAccountById(ctx.db, accountId);
  if (!account) throw errors.notFound();
  await spendSearch(ctx, operator);
  const [oidcEntries, portalSessions] = await Promise.all([listAccountKeys(ctx.store, accountId), listPortalSessions(ctx, accountId)]);
  const signedInBy = await portalSessionsByOidcUid(ctx, portalSessions, oidcEntries);
  const listings: TokenListing[] = await Promise.all(
    oidcEntries.map(async (entry) => ({
      key: tokenLabel(entry.model, entry.key),
      ttl: entry.ttl,
      model: entry.model,
      client_id: entry.clientId ?? null,
      ...(entry.model === 'Session' ? await oidcSessionFacts(ctx, entry, signedInBy) : noSession),
    })),
  );
  for (const session of portalSessions) {
    // Its TTL in the store is the 12 h cap; a session without "remember me" ends sooner when left
    // idle, which is what is shown.
    listings.push({
      key: portalSessionLabel(session.id),
      ttl: secondsLeft(ctx, session),
      model: 'PortalSession',
      client_id: null,
      ...describeSession({ signedInAt: session.auth_time, lastSeenAt: session.last_seen ?? session.created_at, methods: session.amr }, session),
    });
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

/**
 * Which live portal session signed each OP session in: the one recorded at its last sign-in
 * (signingInSession), else one that finished an interaction on it (the profile's own grouping).
 * Only live sessions of this account count; their ids (bearer secrets) never leave the server:
 * the tokens view shows the facts, and ending a session (session-end.service.ts) acts on them.
 */
export async function portalSessionsByOidcUid(
  ctx: Context,
  portalSessions: readonly PortalSessionWithId[],
  entries: readonly AccountOidcEntry[],
): Promise<Map<string, PortalSessionWithId>> {
  const byId = new Map(portalSessions.map((session) => [session.id, session]));
  const found = new Map<string, PortalSessionWithId>();
  for (const session of portalSessions) {
    for (const uid of await linkedOidcSessions(ctx, session.id)) found.set(uid, session);
  }
  const uids = entries.filter((entry) => entry.model === 'Session' && entry.sessionUid).map((entry) => entry.sessionUid!);
  for (const uid of uids) {
    const signer = byId.get((await signingInSession(ctx, uid)) ?? '');
    if (signer) found.set(uid, signer);
  }
  return found;
}

/**
 * An oidc-provider Session: its sign-in as oidc-provider keeps it (loginTs, amr); where and with
 * what browser, from the Nyckel session that signed it in, when that one is still live.
 */
async function oidcSessionFacts(ctx: Context, entry: AccountOidcEntry, signedInBy: Map<string, PortalSessionWithId>): Promise<SessionFacts> {
  const payload = parse(await ctx.store.get(entry.key)) as { loginTs?: unknown; amr?: unknown } | undefined;
  const portal = entry.sessionUid ? signedInBy.get(entry.sessionUid) : undefined;
  return describeSession(
    {
      signedInAt: typeof payload?.loginTs === 'number' ? payload.loginTs : null,
      lastSeenAt: null,
      methods: Array.isArray(payload?.amr) ? payload.amr.filter((method): method is string => typeof method === 'string') : null,
    },
    portal ?? null,
  );
}
