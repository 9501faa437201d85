import type { TenantUser } from '../../api/admin.ts';

/** The tenant user search starts at 3 characters (spec section 9: "more than 2"). */
export const USER_SEARCH_MIN = 3;

/**
 * Most users GET /api/tenants/:id/users answers (the server's tenantUsersLimit): a list this long
 * may have more behind it, which the search asks the server for.
 */
export const TENANT_USERS_LIMIT = 200;

/**
 * Users matching the search by name or email, case-insensitively. Below 3 characters there is no
 * search yet and every user shows. Active users first, then by name.
 */
export function filterTenantUsers(users: readonly TenantUser[], query: string): TenantUser[] {
  const term = query.trim().toLocaleLowerCase();
  const matches =
    term.length < USER_SEARCH_MIN
      ? [...users]
      : users.filter((user) => user.name.toLocaleLowerCase().includes(term) || user.email.toLocaleLowerCase().includes(term));
  return matches.sort((a, b) => Number(b.active) - Number(a.active) || a.name.localeCompare(b.name) || a.email.localeCompare(b.email));
}

/** A server search's answer that held every match (fewer than TENANT_USERS_LIMIT), and its term. */
export interface CompleteSearch {
  term: string;
  users: TenantUser[];
}

/**
 * The users a longer search can be answered from without the server: every user matching `term`
 * also matches any term it contains, so once a search held all its matches, typing on (its term
 * still inside the new one) narrows that answer here. Each server search spends a point of the
 * operator's read budget and writes an audit row; without this, typing a name cost one per pause.
 */
export function narrowedFrom(complete: CompleteSearch | null, term: string): TenantUser[] | null {
  if (!complete || complete.users.length >= TENANT_USERS_LIMIT) return null;
  return term.trim().toLocaleLowerCase().includes(complete.term.trim().toLocaleLowerCase()) ? complete.users : null;
}

/** Query parameter of the tokens page naming the page to go back to. */
export const TOKENS_BACK_PARAM = 'back';

/**
 * `tokens/{email}/{account_id}` under /admin; from the accounts page it says so (`?back=accounts`),
 * for the way back. Never `from`: /admin?from=… is the console's sign-in notice (spec section 2).
 */
export function tokensPath(email: string, accountId: string, back: 'tenants' | 'accounts' = 'tenants'): string {
  const path = `/tokens/${encodeURIComponent(email)}/${encodeURIComponent(accountId)}`;
  return back === 'accounts' ? `${path}?${TOKENS_BACK_PARAM}=accounts` : path;
}
