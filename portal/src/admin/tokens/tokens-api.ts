/**
 * The tokens page's calls. The list is the spec's (GET /api/tokens/{account_id}, api/admin.ts);
 * whose tokens they are comes from the server too, never from the page's URL. A sign-in session
 * of the list is ended by its key.
 */
import { listTokens, type AccessToken } from '../../api/admin.ts';
import { request } from '../../api/client.ts';

/** A store entry with what the server tells of a sign-in session (null on other entries). */
export interface TokenEntry extends AccessToken {
  /** ISO 8601. */
  signed_in_at?: string | null;
  /** ISO 8601: a portal session's last use. */
  last_seen_at?: string | null;
  methods?: string[] | null;
  ip?: string | null;
  user_agent?: string | null;
}

export interface TokensAccount {
  id: string;
  email: string;
}

export interface TokensView {
  account: TokensAccount;
  tokens: TokenEntry[];
}

/** GET /api/tokens/{account_id}/account: the account's id and its address as stored now. */
export function getTokensAccount(accountId: string): Promise<TokensAccount> {
  return request('GET', `/api/tokens/${encodeURIComponent(accountId)}/account`);
}

export async function loadTokensView(accountId: string): Promise<TokensView> {
  const [account, tokens] = await Promise.all([getTokensAccount(accountId), listTokens(accountId)]);
  return { account, tokens };
}

/** The entries a console operator may end: sign-in sessions, oidc-provider's and Nyckel's. */
export function isSession(token: TokenEntry): boolean {
  return token.model === 'Session' || token.model === 'PortalSession';
}

/**
 * DELETE /api/tokens/{account_id}/sessions/{key}: signs that browser out, as the person's own
 * "Sign out" of the session does. Answers how many applications were signed out with it. 404 when
 * the session has ended already; 403 for support on an operator's account; 429 past its budget.
 */
export function endTokenSession(accountId: string, key: string): Promise<{ status: 'signed_out'; applications: number }> {
  return request('DELETE', `/api/tokens/${encodeURIComponent(accountId)}/sessions/${encodeURIComponent(key)}`);
}
