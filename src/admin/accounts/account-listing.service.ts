import { lockInForce } from '../../accounts/accounts.repository.ts';
import { findAccountPendingEmailChange, type PendingEmailChange } from '../../accounts/pending-email-change.ts';
import type { Context } from '../../context.ts';
import { lockoutPolicy } from '../../login/lockout.ts';
import { recordOperatorAction } from '../operator-audit.ts';
import type { Operator } from '../operator-guard.ts';
import {
  credentialsByAccount,
  latestLocksByAccount,
  listAccountRows,
  searchAccountRows,
  tenantAccessByAccount,
  type AccountRow,
  type ConsoleCredentialSummary,
  type LatestLockRow,
  type TenantAccessSummary,
} from './account-listing.repository.ts';
import { spendSearch } from './action-limits.ts';

/** The Account entity of the spec as the console shows it. */
export interface AccountListing extends AccountRow {
  available_credentials: ConsoleCredentialSummary[];
  tenant_access: TenantAccessSummary[];
  /** An operator's change of the address waiting for the new one to confirm it; null when none. */
  pending_email_change: PendingEmailChangeSummary | null;
  /** What the latest lock's audit row knows, while a lock is in force; null otherwise. */
  lock: LockSummary | null;
}

/**
 * How the lock in force began, so support can tell a person's own mistyping from an attack
 * (docs/operations.md prefers a reset over an unlock for an attack): the failure that locked it.
 */
export interface LockSummary {
  locked_at: Date;
  /** Failed attempts in a row when it locked; null when the audit row did not record it. */
  consecutive_failures: number | null;
  /** The 30-day lock after 100 failures in a row, which a password reset ends (lockout.ts). */
  until_password_reset: boolean;
  /** The address and User-Agent of the attempt that locked it. */
  ip: string | null;
  user_agent: string | null;
}

/** Where a pending email change moves the account, and when its link stops working. */
export interface PendingEmailChangeSummary {
  email: string;
  expires_at: Date;
}

/** Most rows a search answers: the console shows one screen of matches, not a dump. */
export const searchLimit = 50;
/** GET /api/accounts/ answers the first accounts by name, never the whole table. */
export const listLimit = 200;

type ListingContext = Pick<Context, 'db' | 'now' | 'store'>;

/** Accounts whose name or email contains `term` (case-insensitive), by name; three queries in all (a fourth when some are locked). */
export async function searchAccounts(ctx: ListingContext, term: string): Promise<AccountListing[]> {
  return withDetails(ctx, await searchAccountRows(ctx.db, term, searchLimit));
}

export async function listAccounts(ctx: ListingContext): Promise<AccountListing[]> {
  return withDetails(ctx, await listAccountRows(ctx.db, listLimit));
}

type OperatorContext = ListingContext & Pick<Context, 'config'>;

/**
 * An operator's search, as the console's route answers it. Each is a read of up to 50 people's
 * names, emails and tenant access, so it is spent from the operator's search budget
 * (action-limits.ts; 429 before anything is read) and audited as `operator.accounts.searched`, as
 * a view of an account's tokens is: with the term and how many accounts it answered, never who
 * they were (the log would hold a copy of what it guards).
 */
export async function searchAccountsFor(ctx: OperatorContext, operator: Operator, term: string): Promise<AccountListing[]> {
  await spendSearch(ctx, operator);
  const found = await searchAccounts(ctx, term);
  await recordSearch(ctx, operator, term, found.length);
  return found;
}

/** An operator's list of the first accounts by name: budgeted and audited as a search, with `query` null. */
export async function listAccountsFor(ctx: OperatorContext, operator: Operator): Promise<AccountListing[]> {
  await spendSearch(ctx, operator);
  const listed = await listAccounts(ctx);
  await recordSearch(ctx, operator, null, listed.length);
  return listed;
}

async function recordSearch(ctx: ListingContext, operator: Operator, query: string | null, count: number): Promise<void> {
  await recordOperatorAction(ctx.db, operator, { action: 'operator.accounts.searched', details: { query, count } }, ctx.now());
}

async function withDetails(ctx: ListingContext, rows: AccountRow[]): Promise<AccountListing[]> {
  const ids = rows.map((row) => row.id);
  const now = ctx.now();
  const lockedIds = rows.filter((row) => lockInForce(row.locked_until, now)).map((row) => row.id);
  const [credentials, access, pending, locks] = await Promise.all([
    credentialsByAccount(ctx.db, ids),
    tenantAccessByAccount(ctx.db, ids, now),
    pendingEmailChanges(ctx, ids),
    latestLocksByAccount(ctx.db, lockedIds),
  ]);
  return rows.map((row, i) => ({
    ...row,
    locked_until: lockInForce(row.locked_until, now),
    available_credentials: credentials.get(row.id) ?? [],
    tenant_access: access.get(row.id) ?? [],
    pending_email_change: pending[i] ?? null,
    lock: lockSummaryOf(locks.get(row.id)),
  }));
}

function lockSummaryOf(row: LatestLockRow | undefined): LockSummary | null {
  if (!row) return null;
  const { at, consecutive_failures, ip, user_agent } = row;
  const untilPasswordReset = consecutive_failures !== null && consecutive_failures >= lockoutPolicy.maxConsecutiveFailures;
  return { locked_at: at, consecutive_failures, until_password_reset: untilPasswordReset, ip, user_agent };
}

/**
 * The pending email change of each account, from the store (one read per account, two for the few
 * with a change; sent together, so a search waits about one round trip). Without it a change an
 * admin asked for was invisible until it was confirmed: the console could not say where the
 * account was being moved, nor offer to withdraw only what was there.
 */
async function pendingEmailChanges(ctx: ListingContext, ids: readonly string[]): Promise<(PendingEmailChangeSummary | null)[]> {
  return Promise.all(ids.map(async (id) => summaryOf(await findAccountPendingEmailChange(ctx, id))));
}

export function summaryOf(change: PendingEmailChange | null): PendingEmailChangeSummary | null {
  return change && { email: change.newEmail, expires_at: new Date(change.expiresAt) };
}
