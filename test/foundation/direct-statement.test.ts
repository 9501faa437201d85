import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directStatement } from '../../src/db/direct-statement.ts';
import { createTestDb } from '../helpers/context.ts';

/**
 * A fixed statement runs the same on PostgreSQL (straight on node-postgres, DATABASE_URL) and on
 * PGlite or in a transaction (through knex.raw): bindings in order, rows as node-postgres parses them.
 */
let test: Awaited<ReturnType<typeof createTestDb>>;
beforeAll(async () => {
  test = await createTestDb();
});
afterAll(async () => {
  await test?.drop();
});

const sum = directStatement(`select ?::int + ?::int as sum, ?::text as label, ?::timestamptz as at`);
const at = new Date('2030-01-02T03:04:05.000Z');

describe('directStatement', () => {
  it('binds its inputs in order and answers the rows, typed', async () => {
    expect((await sum(test.db, [2, 3, 'five', at.toISOString()])).rows).toEqual([{ sum: 5, label: 'five', at }]);
  });

  it('runs inside a transaction on the transaction, seeing its uncommitted rows', async () => {
    const count = directStatement(`select count(*)::int as n from audit_events where action = ?`);
    let inside: unknown;
    await test.db
      .transaction(async (trx) => {
        await trx('audit_events').insert({ action: 'direct.statement.test', at });
        inside = (await count(trx, ['direct.statement.test'])).rows;
        await trx.rollback();
      })
      .catch(() => {});
    expect(inside).toEqual([{ n: 1 }]);
    expect((await count(test.db, ['direct.statement.test'])).rows).toEqual([{ n: 0 }]);
  });

  it(`goes ${process.env.DATABASE_URL ? 'past knex to node-postgres on PostgreSQL' : 'through knex on PGlite'}`, async () => {
    let knexQueries = 0;
    const listener = () => (knexQueries += 1);
    test.db.on('query', listener);
    try {
      await sum(test.db, [1, 2, 'n', at.toISOString()]);
    } finally {
      test.db.off('query', listener);
    }
    expect(knexQueries).toBe(process.env.DATABASE_URL ? 0 : 1);
  });

  it('gives every connection back: many more statements than the pool holds, at once and one by one', async () => {
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => sum(test.db, [i, 1, 'n', at.toISOString()])));
    expect(answers.map(({ rows }) => rows[0]!.sum)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    for (let i = 0; i < 15; i += 1) expect((await sum(test.db, [i, 0, 'n', at.toISOString()])).rows[0]!.sum).toBe(i);
  });

  it('fails with the database error itself, and the connection stays usable', async () => {
    await expect(sum(test.db, ['not a number', 1, 'n', at.toISOString()])).rejects.toMatchObject({ code: '22P02' });
    expect((await sum(test.db, [1, 1, 'n', at.toISOString()])).rows[0]!.sum).toBe(2);
  });
});
