import { createHash } from 'node:crypto';
import type { Knex } from 'knex';

/**
 * Client secrets stored as given become their SHA-256 (src/oidc/client-secret.ts, whose stored
 * form this writes: `sha256$` and the base64url digest): the relying parties keep using the same
 * secrets. There is no way back: `down` leaves them hashed.
 */
export async function up(knex: Knex): Promise<void> {
  const rows: { client_id: string; metadata: string | Record<string, unknown> }[] = await knex('oidc_clients').select('client_id', 'metadata');
  for (const row of rows) {
    const metadata = typeof row.metadata === 'string' ? (JSON.parse(row.metadata) as Record<string, unknown>) : row.metadata;
    const secret = metadata.client_secret;
    if (typeof secret !== 'string' || secret.startsWith('sha256$')) continue;
    const sealed = `sha256$${createHash('sha256').update(secret, 'utf8').digest('base64url')}`;
    await knex('oidc_clients').where({ client_id: row.client_id }).update({ metadata: JSON.stringify({ ...metadata, client_secret: sealed }) });
  }
}

export async function down(): Promise<void> {}
