import type { Knex } from 'knex';

/** What the operator console needs of the data model. Kept PostgreSQL 15 compatible. */
export async function up(knex: Knex): Promise<void> {
  // The console lists active password-reset links (spec: "view reset links"). Only the token's hash
  // was stored, so the token is now also kept sealed with ENCRYPTION_KEY (AES-256-GCM): readable by
  // the server to show an operator, useless to someone holding only a database dump. Rows from
  // before this migration stay null and are simply not listed.
  await knex.schema.alterTable('password_reset_tokens', (t) => {
    t.text('token_sealed');
  });
  // Account lists and searches are sorted by name as people read it. For a term matching many
  // accounts ("son", a common domain) walking this index in order finds the first 50 matches at
  // once, where the trigram indexes would fetch and sort every match; the planner picks per term.
  await knex.raw('create index accounts_name_order on accounts (lower(name), name, email)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists accounts_name_order');
  await knex.schema.alterTable('password_reset_tokens', (t) => {
    t.dropColumn('token_sealed');
  });
}
