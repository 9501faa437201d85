import type { Knex } from 'knex';

/**
 * A tenant is active until its `inactive_at` has passed: a date in the future is a scheduled
 * deactivation. The one rule for sign-in, claims, invoices and the console, on alias `t`.
 */
export function tenantActiveAt(now: Date, alias = 't') {
  return (query: Knex.QueryBuilder) => query.whereNull(`${alias}.inactive_at`).orWhere(`${alias}.inactive_at`, '>', now);
}

export function isTenantActive(inactiveAt: Date | string | null, now: Date): boolean {
  return inactiveAt === null || new Date(inactiveAt) > now;
}
