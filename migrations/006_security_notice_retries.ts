import type { Knex } from 'knex';

/**
 * Security notices not yet mailed (src/profile/security-notice.ts): each is kept here before its
 * first try and deleted once sent, so one whose mail failed, or whose process stopped first,
 * waits here for another try. The row holds what the mail says (the change, when, the browser and
 * address it came from) until it is sent or given up, and goes with its account.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('security_notice_retries', (t) => {
    t.bigIncrements('id');
    t.uuid('account_id').notNullable().references('id').inTable('accounts').onDelete('CASCADE');
    t.jsonb('notice').notNullable();
    t.integer('attempts').notNullable();
    t.timestamp('next_attempt_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['next_attempt_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('security_notice_retries');
}
