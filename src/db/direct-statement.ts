import type { Knex } from 'knex';

/** The part of node-postgres's answer the callers read. */
export interface StatementResult {
  rows: Record<string, unknown>[];
}

interface PgConnection {
  query(text: string, values: unknown[]): Promise<StatementResult>;
}

/**
 * A statement written out once, with positional `?` bindings as for knex.raw, run on a pooled
 * connection. On PostgreSQL it goes to node-postgres directly: in CPU profiles of verify-mfa,
 * knex's raw-query path (binding rewriting, SQL compilation, the runner and its debug hooks) cost
 * ~30 µs of CPU per statement, more than the driver's own work. The connection still comes from
 * knex's pool, with its timeouts, and goes back to it; one that failed is marked broken by knex's
 * own listener and not handed out again, as after a knex query. On PGlite and inside a
 * transaction, knex.raw runs it.
 *
 * The SQL must use `?` only as bindings (no jsonb `?` operators, no `??` identifiers).
 */
export function directStatement(sql: string): (db: Knex | Knex.Transaction, bindings: unknown[]) => Promise<StatementResult> {
  let position = 0;
  const text = sql.replace(/\?/g, () => `$${(position += 1)}`);
  return async (db, bindings) => {
    if (db.isTransaction || db.client.config.client !== 'pg') return (await db.raw(sql, bindings as Knex.RawBinding[])) as unknown as StatementResult;
    const connection = (await db.client.acquireConnection()) as PgConnection;
    try {
      return await connection.query(text, bindings);
    } finally {
      await db.client.releaseConnection(connection);
    }
  };
}
