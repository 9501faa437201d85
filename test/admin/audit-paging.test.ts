import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type request from 'supertest';
import { createPersona, signIn, startAdminApp, type AdminTestApp, type Persona } from './harness.ts';

let t: AdminTestApp;
let admin: request.Agent;
let person: Persona;
/** The person's events as PostgreSQL orders them: newest first, id breaking ties. */
let expected: string[];

/**
 * Twelve events about one person: several in one millisecond (apart only in microseconds), two
 * with the very same time, and one whose id is newer than its time (a late insert), so paging has
 * to follow (at, id) exactly.
 */
const times = [
  '2024-05-01T10:00:00.000Z',
  '2024-05-01T10:00:01.000100Z',
  '2024-05-01T10:00:01.000200Z',
  '2024-05-01T10:00:01.000300Z',
  '2024-05-01T10:00:02.000Z',
  '2024-05-01T10:00:02.000Z',
  '2024-05-01T10:00:02.000Z',
  '2024-05-01T10:00:03.000Z',
  '2024-05-01T09:59:59.000Z',
  '2024-05-01T10:00:04.000Z',
  '2024-05-01T10:00:05.000Z',
  '2024-05-01T10:00:06.000Z',
];

beforeAll(async () => {
  t = await startAdminApp();
  const adminPersona = await createPersona(t.ctx, { role: 'admin', totp: true });
  admin = await signIn(t, adminPersona);
  person = await createPersona(t.ctx);
  for (const [index, at] of times.entries()) {
    await t.ctx.db.raw('insert into audit_events (action, target_account_id, at, details) values (?, ?, ?::timestamptz, ?)', [
      'login.succeeded',
      person.id,
      at,
      JSON.stringify({ n: index }),
    ]);
  }
  const rows = (await t.ctx.db.raw('select id::text as id from audit_events where target_account_id = ? order by at desc, id desc', [person.id])) as {
    rows: { id: string }[];
  };
  expected = rows.rows.map((row) => row.id);
});
afterAll(async () => {
  await t?.close();
});

/** Walks the person's log `limit` events at a time, each page from the last id of the one before. */
async function walk(query: string, limit: number): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let pages = 0;
  let before: string | undefined;
  for (;;) {
    const res = await admin.get(`/api/audit?target=${person.id}&limit=${limit}${query}${before ? `&before=${before}` : ''}`);
    expect(res.status).toBe(200);
    pages += 1;
    const page = (res.body as { id: string }[]).map((event) => event.id);
    ids.push(...page);
    if (page.length < limit) return { ids, pages };
    before = page.at(-1);
    expect(pages).toBeLessThan(20);
  }
}

describe('audit log paging (before = the last id of the previous page)', () => {
  it('walks every event of an account, newest first, none twice and none skipped', async () => {
    expect(expected).toHaveLength(times.length);
    const { ids, pages } = await walk('', 3);
    expect(ids).toEqual(expected);
    expect(pages).toBe(5);
  });

  it.each([1, 2, 5, 11, 12])('gives the same events %i at a time', async (limit) => {
    expect((await walk('', limit)).ids).toEqual(expected);
  });

  it('keeps the other filters on every page', async () => {
    const since = '2024-05-01T10:00:01.000Z';
    const { ids } = await walk(`&since=${encodeURIComponent(since)}&action=login.succeeded`, 3);
    const rows = (await t.ctx.db.raw('select id::text as id from audit_events where target_account_id = ? and at >= ?::timestamptz order by at desc, id desc', [
      person.id,
      since,
    ])) as { rows: { id: string }[] };
    expect(ids).toEqual(rows.rows.map((row) => row.id));
    expect(ids.length).toBeGreaterThan(3);
  });

  it('after the oldest event the page is empty', async () => {
    const res = await admin.get(`/api/audit?target=${person.id}&before=${expected.at(-1)}`);
    expect([res.status, res.body]).toEqual([200, []]);
  });

  it('an event of another account may name the position: the filters still apply', async () => {
    const other = await createPersona(t.ctx);
    await t.ctx.db.raw("insert into audit_events (action, target_account_id, at) values ('login.failed', ?, '2024-05-01T10:00:02.5Z')", [other.id]);
    const [row] = await t.ctx.db('audit_events').where({ target_account_id: other.id }).select(t.ctx.db.raw('id::text as id'));
    const res = await admin.get(`/api/audit?target=${person.id}&before=${(row as { id: string }).id}`);
    // Older than 10:00:02.5: the three at 10:00:02 and everything before them.
    expect(res.body.map((event: { id: string }) => event.id)).toEqual(expected.slice(expected.length - 8));
  });

  it.each([['abc'], ['0'], ['-1'], ['1.5'], ['9223372036854775808'], ['99999999999999999999']])('refuses before=%s with 422', async (before) => {
    const res = await admin.get(`/api/audit?before=${before}`);
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ type: 'validation_error', loc: ['before'] });
  });

  it('refuses an id no event has with 422 (an empty page would read as the end of the log)', async () => {
    const res = await admin.get('/api/audit?before=9223372036854775807');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ type: 'validation_error', msg: 'No audit event has this id', loc: ['before'] }] });
  });
});
