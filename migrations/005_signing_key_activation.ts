import type { Knex } from 'knex';

/**
 * A rotated signing key is published before it signs: `activates_at` is when it starts signing
 * (null: since it was created). The keys it replaces get the same instant as `retired_at`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('signing_keys', (t) => {
    t.timestamp('activates_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('signing_keys', (t) => {
    t.dropColumn('activates_at');
  });
}
