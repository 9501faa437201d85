import type { Knex } from 'knex';

/**
 * Indexes for listings that read newest first or filter on a column no index led with. Without
 * them PostgreSQL reads and sorts the whole table: the audit log's default view (no actor, target or
 * action filter) took over a second at 2.5 million events, and with `(at, id)` it reads the newest
 * page straight off the index (scanned backwards). The console's notification list orders
 * `created_at desc, id` and gets an index in exactly that order. The reset-link listing asks for
 * unused links that have not expired; unused ones are few, so the index holds only those.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create index audit_events_at_id on audit_events (at, id)');
  await knex.raw('create index notifications_created_at_id on notifications (created_at desc, id)');
  await knex.raw('create index password_reset_tokens_open_expiry on password_reset_tokens (expires_at) where used_at is null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists password_reset_tokens_open_expiry');
  await knex.raw('drop index if exists notifications_created_at_id');
  await knex.raw('drop index if exists audit_events_at_id');
}
