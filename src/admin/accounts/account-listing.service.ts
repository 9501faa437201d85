import { lockInForce } from '../../accounts/accounts.repository.ts';
import type { Context } from '../../context.ts';
import {
  credentialsByAccount,
  listAccountRows,
  searchAccountRows,
  tenantAccessByAccount,
  type AccountRow,
  type ConsoleCredentialSummary,
  type TenantAccessSummary,
} from './account-listing.repository.ts';

/** The Account entity of the spec as the console shows it. */
export interface AccountListing extends AccountRow {
  available_credentials: ConsoleCredentialSummary[];
  tenant_access: TenantAccessSummary[];
}

/** Most rows a search answers: the console shows one screen of matches, not a dump. */
export const searchLimit = 50;
/** GET /api/accounts/ answers the first accounts by name, never the whole table. */
export const listLimit = 200;

type ListingContext = Pick<Context, 'db' | 'now'>;

/** Accounts whose name or email contains `term` (case-insensitive), by name; three queries in all. */
export async function searchAccounts(ctx: ListingContext, term: string): Promise<AccountListing[]> {
  return withDetails(ctx, await searchAccountRows(ctx.db, term, searchLimit));
}

export async function listAccounts(ctx: ListingContext): Promise<AccountListing[]> {
  return withDetails(ctx, await listAccountRows(ctx.db, listLimit));
}

async function withDetails(ctx: ListingContext, rows: AccountRow[]): Promise<AccountListing[]> {
  const ids = rows.map((row) => row.id);
  const now = ctx.now();
  const [credentials, access] = await Promise.all([credentialsByAccount(ctx.db, ids), tenantAccessByAccount(ctx.db, ids, now)]);
  return rows.map((row) => ({
    ...row,
    locked_until: lockInForce(row.locked_until, now),
    available_credentials: credentials.get(row.id) ?? [],
    tenant_access: access.get(row.id) ?? [],
  }));
}
