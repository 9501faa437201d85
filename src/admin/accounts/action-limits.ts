import type { Context } from '../../context.ts';
import { createRateLimits, type LimitRule, type RateLimits } from '../../http/rate-limit.ts';
import type { Operator } from '../operator-guard.ts';

/**
 * Budgets of the console's account actions that support may take. Each is audited, but a record
 * after the fact does not stop a support session in the wrong hands from
 * - unlocking one address over and over for a guesser: each unlock is ten new guesses, up to the
 *   100-in-a-row cap (src/login/lockout.ts), at a pace the doubling locks would not allow;
 * - signing one person out again and again, everywhere or one session at a time, keeping them
 *   from their work;
 * - doing either to every account in turn;
 * - mailing reset links to every account in turn: each address's mail budget (login-mail.ts)
 *   bounds the mails to one address, not how many addresses one operator mails, and every mail
 *   revokes the link the person may be about to use;
 * - reading every account in turn through searches and lists (operatorSearch below).
 * The budgets are far above what helping people needs: an unlock or a sign-out that did not
 * help is rarely worth repeating more than a few times an hour, and an operator sends a reset
 * mail while talking to the person. (An account has only so many credentials to delete, and
 * deleting one takes an admin with a recent sign-in.)
 */
export const accountActionRules = {
  /** Per action and account, by all operators together. */
  target: { points: 5, duration: 60 * 60 },
  /** Unlocks and sign-outs (everywhere, or of one session) by one operator, whatever the account. */
  operator: { points: 30, duration: 15 * 60 },
  /** Reset mails sent by one operator, whatever the account. */
  operatorMail: { points: 30, duration: 15 * 60 },
  /**
   * Notifications sent by one operator (src/admin/notifications): each shows in the apps of every
   * tenant it names, up to all of them, as a popup if asked. Releases and maintenance take a few a
   * day; a support session in the wrong hands must not fill every tenant's screen with them.
   */
  operatorNotification: { points: 20, duration: 60 * 60 },
  /**
   * Reads of people (and tenants) by one operator, one budget for all of them, so a script gets
   * 600 an hour in all, not 600 a route:
   * - account searches and lists (GET /api/accounts/ and its search route): up to 50 (a list 200)
   *   accounts' names, emails and tenant access;
   * - a tenant's users (GET /api/tenants/{id}/users, with or without `q`): up to 200 names, emails
   *   and roles;
   * - one account's sessions (GET /api/tokens/{account_id}: addresses, browsers), address
   *   (GET /api/tokens/{account_id}/account) or pending new address
   *   (GET /api/accounts/{id}/email-change): one point each, or a script walks ids it got elsewhere;
   * - the tenant list and search (names and slugs, not people: budgeted, not audited).
   * An operator types account searches on Enter, a few a minute at the most; a tenant user search
   * asks the server only until an answer holds all its matches (tenant-users.tsx); opening a
   * tenant costs one point, a tokens page two: 600 an hour is several times a busy day's pace, and a burst of
   * 60 in a minute covers fixing typos at speed. A script is held to 60 a minute and 600 an hour
   * (about 30,000 accounts at most, each read audited), where one support session ran 400 in four
   * seconds. Admins spend it too: the reads are the same whoever's session runs them.
   */
  operatorSearch: { points: 600, duration: 60 * 60 },
  operatorSearchBurst: { points: 60, duration: 60 },
} as const satisfies Record<string, LimitRule>;

/**
 * Each has its own budget per account: ending one session is what helping someone who left a
 * library computer signed in takes, and must not be refused because the account was signed out
 * everywhere an hour ago (or the other way round).
 */
export type LimitedAccountAction = 'unlock' | 'sign-out-everywhere' | 'end-session';

const shared = new WeakMap<object, RateLimits<keyof typeof accountActionRules>>();

/**
 * Takes a point of the operator's budget and of the account's for this action; 429
 * `too_many_requests` with Retry-After when either is spent. Called after the account was found
 * and the operator's role checked (404 and 403 cost nothing) and before anything is recorded or
 * changed, so a refused call leaves no trace but the access log.
 */
export async function spendAccountAction(ctx: Context, operator: Operator, action: LimitedAccountAction, accountId: string): Promise<void> {
  const limits = limitsOf(ctx);
  await limits.consume('operator', operator.account_id);
  try {
    await limits.consume('target', `${action}:${accountId}`);
  } catch (error) {
    // Refused for the account's sake, not the operator's: the point goes back, so an operator
    // who met an account's spent budget can still help everyone else.
    await limits.refund('operator', operator.account_id);
    throw error;
  }
}

/**
 * Takes a point of the operator's reset-mail budget; 429 `too_many_requests` with Retry-After when
 * it is spent. Called after the account was found and before the address's mail budget is taken
 * or a link made, so a refused call spends nothing of the person's and leaves no trace.
 */
export async function spendResetMail(ctx: Context, operator: Operator): Promise<void> {
  await limitsOf(ctx).consume('operatorMail', operator.account_id);
}

/**
 * Takes a point of the operator's search budgets, the hour's and the minute's; 429
 * `too_many_requests` with Retry-After when either is spent. A call the minute refuses gives the
 * hour's point back, so a burst costs only the reads that were answered. Every read that
 * operatorSearch lists spends from here, before it reads what it answers and before its audit row.
 */
export async function spendSearch(ctx: Pick<Context, 'store' | 'config'>, operator: Operator): Promise<void> {
  const limits = limitsOf(ctx);
  await limits.consume('operatorSearch', operator.account_id);
  try {
    await limits.consume('operatorSearchBurst', operator.account_id);
  } catch (error) {
    await limits.refund('operatorSearch', operator.account_id);
    throw error;
  }
}

/**
 * Takes a point of the operator's notification budget; 429 `too_many_requests` with Retry-After
 * when it is spent. Called after the input was checked and before anything is stored.
 */
export async function spendNotification(ctx: Context, operator: Operator): Promise<void> {
  await limitsOf(ctx).consume('operatorNotification', operator.account_id);
}

function limitsOf(ctx: Pick<Context, 'store' | 'config'>): RateLimits<keyof typeof accountActionRules> {
  let limits = shared.get(ctx);
  if (!limits) {
    limits = createRateLimits(ctx, accountActionRules);
    shared.set(ctx, limits);
  }
  return limits;
}
