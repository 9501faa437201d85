import type { Knex } from 'knex';

/**
 * Passkeys live in the credentials table (subject = credential id in base64url, public_key = COSE
 * key, counter, data = name, transports, aaguid). The identity index of 001 does not make their
 * ids unique: it includes `provider`, which is null for passkeys, and nulls never collide. A
 * credential id must name one credential of one account, else a sign-in could not tell whose key
 * it checks, so passkey ids get their own unique index. Kept PostgreSQL 15 compatible.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw("create unique index credentials_webauthn_id on credentials (subject) where type = 'webauthn'");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists credentials_webauthn_id');
}
