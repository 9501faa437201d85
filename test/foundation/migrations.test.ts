import { randomBytes } from 'node:crypto';
import knex from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/knex.ts';
import { migrateLatest, migrateRollbackAll } from '../../src/db/migrate.ts';
import { createTestDb } from '../helpers/context.ts';
import * as unchosenLocale from '../../migrations/009_unchosen_locale.ts';
import * as queryIndexes from '../../migrations/010_query_indexes.ts';
import { ownActivity } from '../../src/profile/activity.service.ts';

/** The data model of DESIGN.md ("operators/roles" is operator_roles); signing_keys holds the OIDC keys. */
const designTables = [
  'accounts',
  'credentials',
  'tenants',
  'tenant_access',
  'tenant_settings',
  'oidc_clients',
  'password_reset_tokens',
  'notifications',
  'audit_events',
  'operator_roles',
  'signing_keys',
];

const queryIndexNames = ['audit_events_at_id', 'notifications_created_at_id', 'password_reset_tokens_open_expiry'];

/** knex's own bookkeeping survives a rollback; everything else is the application's. */
const knexTables = ['knex_migrations', 'knex_migrations_lock'];

async function appTables(db: Db): Promise<string[]> {
  const rows: { table_name: string }[] = await db('information_schema.tables')
    .where({ table_schema: 'public', table_type: 'BASE TABLE' })
    .whereNotIn('table_name', knexTables)
    .orderBy('table_name')
    .select('table_name');
  return rows.map((row) => row.table_name);
}

describe('migrations on the test database', () => {
  let db: Db;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb());
  });
  afterAll(() => drop?.());

  it('up creates every table of the data model', async () => {
    expect(await appTables(db)).toEqual(expect.arrayContaining(designTables));
  });

  it('down removes every application table', async () => {
    expect(await migrateRollbackAll(db)).toContain('001_initial');
    expect(await appTables(db)).toEqual([]);
  });

  it('up again restores them all', async () => {
    expect(await migrateLatest(db)).toContain('001_initial');
    expect(await appTables(db)).toEqual(expect.arrayContaining(designTables));
    expect(await migrateLatest(db)).toEqual([]);
  });

  it('keeps one account per email, ignoring case', async () => {
    await db('accounts').insert({ email: 'A@x.se', name: 'Upper' });
    await expect(db('accounts').insert({ email: 'a@x.se', name: 'Lower' })).rejects.toThrow(/unique|duplicate/i);
    const found = await db('accounts').where({ email: 'a@X.SE' }).select('name');
    expect(found).toEqual([{ name: 'Upper' }]);
  });

  it('accepts lowercase alphanumeric tenant slugs and rejects others', async () => {
    await db('tenants').insert({ name: 'Good', slug: 'goodslug1' });
    for (const slug of ['Bad-Slug', 'bad-slug', 'bad slug', '']) {
      await expect(db('tenants').insert({ name: 'Bad', slug })).rejects.toThrow(/tenants_slug_format|check constraint/i);
    }
    await expect(db('tenants').insert({ name: 'Again', slug: 'goodslug1' })).rejects.toThrow(/unique|duplicate/i);
  });

  it('allows only the known credential types', async () => {
    const [account] = await db('accounts').insert({ email: 'cred@x.se' }).returning('id');
    await db('credentials').insert({ account_id: account.id, type: 'totp', secret: 'sealed' });
    await expect(db('credentials').insert({ account_id: account.id, type: 'sms' })).rejects.toThrow(/check constraint/i);
  });

  it('keeps a chosen language and forgets the old default: an account made now has none', async () => {
    await unchosenLocale.down(db);
    const made = async (email: string, locale: string) => ((await db('accounts').insert({ email, locale }).returning('id')) as { id: string }[])[0]!.id;
    const defaulted = await made('default@x.se', 'en');
    const chose = await made('chose-en@x.se', 'en');
    const swedish = await made('sv@x.se', 'sv');
    await db('audit_events').insert({ action: 'account.setting.changed', actor_id: chose, target_account_id: chose, details: { key: 'locale', value: 'en' } });
    // Another setting's change is no language choice.
    await db('audit_events').insert({ action: 'account.setting.changed', actor_id: defaulted, target_account_id: defaulted, details: { key: 'name' } });
    await unchosenLocale.up(db);
    const locales = await db('accounts').whereIn('id', [defaulted, chose, swedish]).select('id', 'locale');
    expect(Object.fromEntries(locales.map((row: { id: string; locale: string | null }) => [row.id, row.locale]))).toEqual({
      [defaulted]: null,
      [chose]: 'en',
      [swedish]: 'sv',
    });
    const fresh = await db('accounts').insert({ email: 'fresh@x.se' }).returning('locale');
    expect(fresh).toEqual([{ locale: null }]);
  });

  it('indexes the newest-first listings and the open reset links, and down drops them', async () => {
    const indexes = async () =>
      ((await db('pg_indexes').where({ schemaname: 'public' }).whereIn('indexname', queryIndexNames).orderBy('indexname').select('indexname', 'indexdef')) as {
        indexname: string;
        indexdef: string;
      }[]).map((row) => `${row.indexname}: ${row.indexdef.replace(/^.* USING btree /, '')}`);
    expect(await indexes()).toEqual([
      'audit_events_at_id: (at, id)',
      'notifications_created_at_id: (created_at DESC, id)',
      'password_reset_tokens_open_expiry: (expires_at) WHERE (used_at IS NULL)',
    ]);
    await queryIndexes.down(db);
    expect(await indexes()).toEqual([]);
    await queryIndexes.up(db);
    expect(await indexes()).toHaveLength(3);
  });

  it("reads the profile's own activity off an index that leaves operators' work out", async () => {
    const query = ownActivity(db, '00000000-0000-4000-8000-000000000001').orderBy([{ column: 'at', order: 'desc' }]).limit(20).select('id');
    const plan = await db.transaction(async (trx) => {
      // The table is nearly empty here: without this PostgreSQL would rightly read it whole.
      await trx.raw('set local enable_seqscan = off');
      const rows = (await trx.raw(`explain ${query.toString()}`)).rows as { 'QUERY PLAN': string }[];
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain('audit_events_own_activity');
  });
});

describe.skipIf(!process.env.DATABASE_URL)('migrations from several instances starting at once on an empty PostgreSQL database', () => {
  it('all succeed, each migration applied once: the instances take turns', async () => {
    const admin = knex({ client: 'pg', connection: process.env.DATABASE_URL!, pool: { min: 0, max: 1 } });
    try {
      // Without the lock most rounds failed (knex creates its own tables outside its lock).
      for (let round = 0; round < 3; round += 1) {
        const name = `nyckel_migrate_race_${randomBytes(6).toString('hex')}`;
        await admin.raw(`create database ${name}`);
        const url = new URL(process.env.DATABASE_URL!);
        url.pathname = `/${name}`;
        const instances = await Promise.all([0, 1, 2].map(() => createDb({ databaseUrl: url.toString() })));
        try {
          const applied = await Promise.all(instances.map((instance) => migrateLatest(instance)));
          const all = applied.flat();
          expect(all.length).toBeGreaterThan(0);
          expect(new Set(all).size).toBe(all.length);
          expect(await instances[0]!('knex_migrations').count({ n: '*' })).toEqual([{ n: String(all.length) }]);
          expect(await instances[0]!('knex_migrations_lock').count({ n: '*' })).toEqual([{ n: '1' }]);
        } finally {
          await Promise.all(instances.map((instance) => instance.destroy()));
          await admin.raw(`drop database if exists ${name} with (force)`);
        }
      }
    } finally {
      await admin.destroy();
    }
  }, 60_000);
});
