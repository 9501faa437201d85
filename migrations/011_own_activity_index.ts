import type { Knex } from 'knex';

/**
 * The profile's "Recent activity" reads what the person did naming no account, newest first
 * (src/profile/activity.service.ts), leaving out operators' work: an operator's account searches
 * and tenant changes name no account either, and an operator's rows may run to hundreds of
 * thousands. Off `(actor_id, at)` PostgreSQL would step over all of them to find 20 of the
 * person's own; this index holds only the rows that query can answer.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw("create index audit_events_own_activity on audit_events (actor_id, at) where target_account_id is null and action not like 'operator.%'");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists audit_events_own_activity');
}
