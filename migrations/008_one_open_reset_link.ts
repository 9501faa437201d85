import type { Knex } from 'knex';

/**
 * At most one unused reset link per account (src/login/reset.service.ts createResetLink: a new
 * link revokes the older ones). Two links made at once (an operator's reset mail and the person's
 * own "forgot password") could both stay open; the index makes that impossible. Accounts that
 * already hold several keep only the newest: the older ones were meant to be revoked by it.
 *
 * The table is locked against writes first, so no link made by an instance still running the old
 * code lands between the clean-up and the index.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('lock table password_reset_tokens in share row exclusive mode');
  await knex.raw(`
    delete from password_reset_tokens older
     where older.used_at is null
       and exists (
         select 1 from password_reset_tokens newer
          where newer.account_id = older.account_id
            and newer.used_at is null
            and (newer.created_at, newer.id) > (older.created_at, older.id)
       )`);
  await knex.raw('create unique index password_reset_tokens_one_open on password_reset_tokens (account_id) where used_at is null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index password_reset_tokens_one_open');
}
