import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type request from 'supertest';
import { TENANT_USERS_LIMIT } from '../../portal/src/admin/tenants/user-search.ts';
import { tenantUsersLimit } from '../../src/admin/tenants/tenants-admin.service.ts';
import { createPersona, errorType, signIn, startAdminApp, type AdminTestApp } from './harness.ts';

/** Names sort case-insensitively, as people read them, whatever the database collation. */
const byLowerCase = (a: string, b: string) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0);

let t: AdminTestApp;
let admin: request.Agent;
let support: request.Agent;

beforeAll(async () => {
  t = await startAdminApp();
  admin = await signIn(t, await createPersona(t.ctx, { role: 'admin', totp: true }));
  support = await signIn(t, await createPersona(t.ctx, { role: 'support', totp: true }));
});
afterAll(async () => {
  await t?.close();
});

async function createTenant(name: string, slug: string): Promise<string> {
  const res = await admin.post('/api/tenants').send({ name, slug });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(Object.keys(res.body)).toEqual(['id']);
  return res.body.id;
}

async function people(tenantId: string, spec: { users?: number; inactiveUsers?: number; stakeholders?: number; admins?: number }): Promise<void> {
  const add = async (count: number, fields: { is_user: boolean; is_stakeholder: boolean }, access: { active: boolean; role: string }) => {
    for (let i = 0; i < count; i += 1) {
      const [row] = await t.ctx.db('accounts')
        .insert({ email: `p${Math.random().toString(36).slice(2)}@people.test`, name: `Person ${i}`, ...fields })
        .returning('id');
      await t.ctx.db('tenant_access').insert({ account_id: row.id, tenant_id: tenantId, ...access });
    }
  };
  await add(spec.users ?? 0, { is_user: true, is_stakeholder: false }, { active: true, role: 'user' });
  await add(spec.admins ?? 0, { is_user: true, is_stakeholder: false }, { active: true, role: 'admin' });
  await add(spec.inactiveUsers ?? 0, { is_user: true, is_stakeholder: false }, { active: false, role: 'user' });
  await add(spec.stakeholders ?? 0, { is_user: false, is_stakeholder: true }, { active: true, role: 'user' });
}

describe('creating a tenant', () => {
  it('creates with name and slug, audited', async () => {
    const id = await createTenant('Fresh Start AB', 'freshstart');
    const row = await t.ctx.db('tenants').where({ id }).first();
    expect(row).toMatchObject({ name: 'Fresh Start AB', slug: 'freshstart', inactive_at: null });
    const audit = await t.ctx.db('audit_events').where({ action: 'operator.tenant.created', tenant_id: id }).first();
    expect(audit.details).toMatchObject({ name: 'Fresh Start AB', slug: 'freshstart' });
  });

  it.each([
    ['upper case', 'Fresh'],
    ['a space', 'fresh start'],
    ['a dash', 'fresh-start'],
    ['an underscore', 'fresh_start'],
    ['a non-ASCII letter', 'malmö'],
    ['nothing', ''],
    ['more than 63 characters', 'a'.repeat(64)],
  ])('refuses a slug with %s', async (_label, slug) => {
    const res = await admin.post('/api/tenants').send({ name: 'Named', slug });
    expect([res.status, errorType(res)]).toEqual([422, 'validation_error']);
    expect(res.body.detail[0].loc).toEqual(['slug']);
  });

  it('needs a name and a slug', async () => {
    expect((await admin.post('/api/tenants').send({ slug: 'noname' })).body.detail[0].loc).toEqual(['name']);
    expect((await admin.post('/api/tenants').send({ name: '   ', slug: 'blankname' })).status).toBe(422);
    expect((await admin.post('/api/tenants').send({ name: 'No slug' })).body.detail[0].loc).toEqual(['slug']);
  });

  it('refuses a taken slug with 409 tenant/slug-taken, also when two race', async () => {
    await createTenant('First', 'taken1');
    const again = await admin.post('/api/tenants').send({ name: 'Second', slug: 'taken1' });
    expect([again.status, errorType(again)]).toEqual([409, 'tenant/slug-taken']);
    const racing = await Promise.all([1, 2, 3].map((n) => admin.post('/api/tenants').send({ name: `Racer ${n}`, slug: 'raced' })));
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    expect(await t.ctx.db('tenants').where({ slug: 'raced' })).toHaveLength(1);
  });
});

describe('listing, searching and reading tenants', () => {
  let beta: string;
  beforeAll(async () => {
    await createTenant('Gamma Group', 'gamma');
    beta = await createTenant('Beta Bureau', 'betab');
    await createTenant('alpha lowercase', 'alphalow');
    await people(beta, { users: 2, admins: 1, inactiveUsers: 1, stakeholders: 1 });
  });

  it('lists every tenant sorted by name with its active user count', async () => {
    const res = await support.get('/api/tenants/');
    expect(res.status).toBe(200);
    const names = res.body.map((x: { name: string }) => x.name);
    expect(names).toEqual([...names].sort(byLowerCase));
    const row = res.body.find((x: { id: string }) => x.id === beta);
    expect(row).toEqual({ id: beta, name: 'Beta Bureau', slug: 'betab', url: null, inactive_at: null, user_count: 3 });
  });

  it('searches by name or slug, case-insensitively', async () => {
    expect((await support.get('/api/tenants/search/BUREAU')).body.map((x: { slug: string }) => x.slug)).toEqual(['betab']);
    expect((await support.get('/api/tenants/search/alphal')).body.map((x: { slug: string }) => x.slug)).toEqual(['alphalow']);
    expect((await support.get('/api/tenants/search/zzzz')).body).toEqual([]);
    expect((await support.get('/api/tenants/search/%20')).status).toBe(422);
  });

  it('lists the users of a tenant with their access state', async () => {
    const res = await support.get(`/api/tenants/${beta}/users`);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(5);
    expect(res.body[0]).toEqual({ id: expect.any(String), name: expect.any(String), email: expect.any(String), active: expect.any(Boolean), role: expect.any(String) });
    expect(res.body.filter((u: { active: boolean }) => !u.active)).toHaveLength(1);
  });

  it('answers at most 200 users, active first, and finds the others by name or email with q', async () => {
    const big = await createTenant('Big Corp', 'bigcorp');
    const accounts = Array.from({ length: 260 }, (_, i) => ({
      email: `member${String(i).padStart(3, '0')}@big.test`,
      name: i === 259 ? 'Zelda 100% Zorn' : `Member ${String(i).padStart(3, '0')}`,
      is_user: true,
    }));
    const ids = (await t.ctx.db('accounts').insert(accounts).returning('id')) as { id: string }[];
    // The first five by name have their access switched off: they come after every active one.
    await t.ctx.db('tenant_access').insert(ids.map(({ id }, i) => ({ account_id: id, tenant_id: big, active: i >= 5, role: 'user' })));

    const first = await support.get(`/api/tenants/${big}/users`);
    expect(first.status).toBe(200);
    expect(first.body).toHaveLength(tenantUsersLimit);
    expect(first.body.every((u: { active: boolean }) => u.active)).toBe(true);
    expect(first.body.map((u: { name: string }) => u.name).slice(0, 2)).toEqual(['Member 005', 'Member 006']);
    expect(TENANT_USERS_LIMIT).toBe(tenantUsersLimit);

    // Beyond the first 200: by part of the name, of the email, any case; % is a character.
    const named = async (q: string) => (await support.get(`/api/tenants/${big}/users`).query({ q })).body.map((u: { name: string }) => u.name);
    expect(await named('zelda')).toEqual(['Zelda 100% Zorn']);
    expect(await named('MEMBER25')).toEqual(['Member 250', 'Member 251', 'Member 252', 'Member 253', 'Member 254', 'Member 255', 'Member 256', 'Member 257', 'Member 258', 'Zelda 100% Zorn']);
    expect(await named('00%')).toEqual(['Zelda 100% Zorn']);
    expect(await named('  member003@  ')).toEqual(['Member 003']);
    expect(await named('ember 00')).toEqual(['Member 005', 'Member 006', 'Member 007', 'Member 008', 'Member 009', 'Member 000', 'Member 001', 'Member 002', 'Member 003', 'Member 004']);
    expect((await support.get(`/api/tenants/${big}/users`).query({ q: 'member' })).body).toHaveLength(tenantUsersLimit);
    // Another tenant's members are not found.
    expect(await named('Person')).toEqual([]);
    expect((await support.get(`/api/tenants/${beta}/users`).query({ q: 'member' })).body).toEqual([]);

    for (const q of ['ab', '  ab  ', 'x'.repeat(101)]) {
      const res = await support.get(`/api/tenants/${big}/users`).query({ q });
      expect([res.status, errorType(res)], q).toEqual([422, 'validation_error']);
    }
  });

  it('404 for an unknown tenant everywhere', async () => {
    const unknown = '7d1f3a2e-0000-4000-8000-000000000000';
    for (const path of ['', '/users', '/settings', '/settings/sms', '/settings/sms/credits']) {
      const res = await support.get(`/api/tenants/${unknown}${path}`);
      expect([res.status, errorType(res)], path).toEqual([404, 'not_found']);
    }
    expect((await admin.post(`/api/tenants/${unknown}/settings/sms/credits`).send({ credits: 5 })).status).toBe(404);
    expect((await admin.post(`/api/tenants/${unknown}/settings`).send({ key: 'x', value: 1 })).status).toBe(404);
  });
});

describe('settings', () => {
  let id: string;
  beforeAll(async () => {
    id = await createTenant('Settings Co', 'settingsco');
  });

  it('sets any JSON under a free key and answers tenant_id, key, value; GET lists them; audited with the old value', async () => {
    const first = await admin.post(`/api/tenants/${id}/settings`).send({ key: 'theme', value: { color: 'teal', dense: true } });
    expect([first.status, first.body]).toEqual([200, { tenant_id: id, key: 'theme', value: { color: 'teal', dense: true } }]);
    await admin.post(`/api/tenants/${id}/settings`).send({ key: 'theme', value: 'plain' });
    const list = await support.get(`/api/tenants/${id}/settings`);
    expect(list.body).toEqual([{ tenant_id: id, key: 'theme', value: 'plain' }]);
    const audit = await t.ctx.db('audit_events').where({ action: 'operator.tenant_setting.set', tenant_id: id }).orderBy('id', 'desc').first();
    expect(audit.details).toMatchObject({ key: 'theme', value: 'plain', previous: { color: 'teal', dense: true } });
  });

  it('checks the shapes of known keys and keeps credits out of it', async () => {
    expect((await admin.post(`/api/tenants/${id}/settings`).send({ key: 'system_cronofy', value: { value: true } })).status).toBe(200);
    expect((await admin.post(`/api/tenants/${id}/settings`).send({ key: 'system_cronofy', value: true })).status).toBe(422);
    expect((await admin.post(`/api/tenants/${id}/settings`).send({ key: 'integrations', value: { alva: true, sri: false } })).status).toBe(200);
    const badIntegration = await admin.post(`/api/tenants/${id}/settings`).send({ key: 'integrations', value: { alva: 'yes' } });
    expect(badIntegration.body.detail[0].loc).toEqual(['value', 'alva']);
    expect((await admin.post(`/api/tenants/${id}/settings`).send({ key: 'integrations', value: { unknown: true } })).status).toBe(422);
    expect((await admin.post(`/api/tenants/${id}/settings`).send({ key: 'info', value: { sender: 'X' } })).status).toBe(422);
    const credits = await admin.post(`/api/tenants/${id}/settings`).send({ key: 'sms_credits', value: 1_000_000 });
    expect([credits.status, credits.body.detail[0].loc]).toEqual([422, ['key']]);
    expect((await admin.post(`/api/tenants/${id}/settings`).send({ key: 'Bad Key', value: 1 })).status).toBe(422);
    expect((await admin.post(`/api/tenants/${id}/settings`).send({ key: 'novalue' })).status).toBe(422);
  });

  it("takes Object.prototype's names as free keys like any other, stored as given", async () => {
    const tenant = await createTenant('Proto Co', 'protoco');
    // The only names of Object.prototype's members the key rule (lower case) lets through.
    for (const key of ['constructor', '__proto__']) {
      const res = await admin.post(`/api/tenants/${tenant}/settings`).send({ key, value: { polluted: true } });
      expect([res.status, res.body], key).toEqual([200, { tenant_id: tenant, key, value: { polluted: true } }]);
    }
    expect((await support.get(`/api/tenants/${tenant}/settings`)).body).toEqual(
      ['__proto__', 'constructor'].map((key) => ({ tenant_id: tenant, key, value: { polluted: true } })),
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Known keys are still checked.
    expect((await admin.post(`/api/tenants/${tenant}/settings`).send({ key: 'system_cronofy', value: true })).status).toBe(422);
  });

  it('audits an SMS key set here as an SMS setting, as /settings/sms does', async () => {
    const tenant = await createTenant('Sms Here Co', 'smshereco');
    for (const [key, value] of [['system_sms', { value: true }], ['sms_sign', { name: 'Sms Here AB' }], ['theme', 'dark']] as const) {
      expect((await admin.post(`/api/tenants/${tenant}/settings`).send({ key, value })).status, key).toBe(200);
    }
    const audit = await t.ctx.db('audit_events').where({ tenant_id: tenant }).whereLike('action', 'operator.%setting.set').orderBy('id');
    expect(audit.map((row) => [row.action, row.details.key])).toEqual([
      ['operator.sms_setting.set', 'system_sms'],
      ['operator.sms_setting.set', 'sms_sign'],
      ['operator.tenant_setting.set', 'theme'],
    ]);
  });
});

describe('SMS settings (spec: info, system_sms, sms_sign)', () => {
  let id: string;
  const info = { sender: 'Acme', warning_1: 100, warning_2: 20, paused: false, warned: false };
  beforeAll(async () => {
    id = await createTenant('Sms Co', 'smsco');
  });

  it('stores each key in its JSON shape, answers key and value, and lists only SMS keys', async () => {
    await admin.post(`/api/tenants/${id}/settings`).send({ key: 'theme', value: 'x' });
    const posted = await admin.post(`/api/tenants/${id}/settings/sms`).send({ key: 'info', value: info });
    expect([posted.status, posted.body]).toEqual([200, { key: 'info', value: info }]);
    expect((await admin.post(`/api/tenants/${id}/settings/sms`).send({ key: 'system_sms', value: { value: true } })).body).toEqual({ key: 'system_sms', value: { value: true } });
    expect((await admin.post(`/api/tenants/${id}/settings/sms`).send({ key: 'sms_sign', value: { name: 'Sms Co AB' } })).body).toEqual({ key: 'sms_sign', value: { name: 'Sms Co AB' } });
    const list = await support.get(`/api/tenants/${id}/settings/sms`);
    expect(list.body).toEqual([
      { key: 'info', value: info },
      { key: 'sms_sign', value: { name: 'Sms Co AB' } },
      { key: 'system_sms', value: { value: true } },
    ]);
    expect(await t.ctx.db('audit_events').where({ action: 'operator.sms_setting.set', tenant_id: id })).toHaveLength(3);
  });

  it('posting info updates the tenant sender; pausing keeps the rest', async () => {
    await admin.post(`/api/tenants/${id}/settings/sms`).send({ key: 'info', value: { ...info, sender: 'NewSender' } });
    await admin.post(`/api/tenants/${id}/settings/sms`).send({ key: 'info', value: { ...info, sender: 'NewSender', paused: true } });
    const detail = await support.get(`/api/tenants/${id}`);
    expect(detail.body).toMatchObject({
      id,
      name: 'Sms Co',
      slug: 'smsco',
      user_count: 0,
      sms_sender: 'NewSender',
      functions: { system_sms: true, system_cronofy: false },
      sms_credits: 0,
    });
    expect(detail.body.sms_settings).toContainEqual({ key: 'info', value: { ...info, sender: 'NewSender', paused: true } });
    expect(detail.body.settings.map((s: { key: string }) => s.key)).toEqual(['info', 'sms_sign', 'system_sms', 'theme']);
  });

  it.each([
    ['an unknown key', { key: 'sms_other', value: { value: true } }],
    ['info without sender', { key: 'info', value: { warning_1: 1, warning_2: 1, paused: false, warned: false } }],
    ['info with an extra field', { key: 'info', value: { ...info, extra: 1 } }],
    ['info with a 12-character sender', { key: 'info', value: { ...info, sender: 'TwelveLetter' } }],
    ['info with a negative warning', { key: 'info', value: { ...info, warning_1: -1 } }],
    ['info with a fractional warning', { key: 'info', value: { ...info, warning_2: 1.5 } }],
    ['info with paused as text', { key: 'info', value: { ...info, paused: 'true' } }],
    ['system_sms as a bare boolean', { key: 'system_sms', value: true }],
    ['system_sms with a text value', { key: 'system_sms', value: { value: 'on' } }],
    ['sms_sign without name', { key: 'sms_sign', value: {} }],
    ['sms_sign with an empty name', { key: 'sms_sign', value: { name: '  ' } }],
  ])('refuses %s with 422', async (_label, body) => {
    const res = await admin.post(`/api/tenants/${id}/settings/sms`).send(body);
    expect([res.status, errorType(res)]).toEqual([422, 'validation_error']);
  });

  it('accepts a phone number as sender', async () => {
    expect((await admin.post(`/api/tenants/${id}/settings/sms`).send({ key: 'info', value: { ...info, sender: '+46701234567' } })).status).toBe(200);
  });
});

describe('SMS credits', () => {
  let id: string;
  beforeAll(async () => {
    id = await createTenant('Credit Co', 'creditco');
  });

  it('starts at 0 and adds, answering the new total', async () => {
    expect((await support.get(`/api/tenants/${id}/settings/sms/credits`)).body).toEqual({ credits: 0 });
    expect((await admin.post(`/api/tenants/${id}/settings/sms/credits`).send({ credits: 500 })).body).toEqual({ credits: 500 });
    expect((await admin.post(`/api/tenants/${id}/settings/sms/credits`).send({ credits: 1 })).body).toEqual({ credits: 501 });
    expect((await support.get(`/api/tenants/${id}/settings/sms/credits`)).body).toEqual({ credits: 501 });
    const audit = await t.ctx.db('audit_events').where({ action: 'operator.sms_credits.added', tenant_id: id }).orderBy('id');
    expect(audit.map((a) => a.details)).toEqual([expect.objectContaining({ added: 500, total: 500 }), expect.objectContaining({ added: 1, total: 501 })]);
  });

  it('concurrent additions all count', async () => {
    const before = (await support.get(`/api/tenants/${id}/settings/sms/credits`)).body.credits;
    const answers = await Promise.all(Array.from({ length: 8 }, () => admin.post(`/api/tenants/${id}/settings/sms/credits`).send({ credits: 10 })));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(new Set(answers.map((a) => a.body.credits)).size).toBe(8);
    expect((await support.get(`/api/tenants/${id}/settings/sms/credits`)).body).toEqual({ credits: before + 80 });
  });

  it.each([
    ['negative', -5],
    ['zero', 0],
    ['fractional', 2.5],
    ['numeric text', '100'],
    ['text', 'lots'],
    ['huge', 1_000_001],
    ['far too huge', 1e308],
    ['null', null],
    ['an array', [100]],
  ])('refuses %s credits with 422 and changes nothing', async (_label, credits) => {
    const before = (await support.get(`/api/tenants/${id}/settings/sms/credits`)).body.credits;
    const res = await admin.post(`/api/tenants/${id}/settings/sms/credits`).send({ credits });
    expect([res.status, errorType(res)]).toEqual([422, 'validation_error']);
    expect((await support.get(`/api/tenants/${id}/settings/sms/credits`)).body.credits).toBe(before);
  });

  it('a hand-edited non-number counts as 0', async () => {
    const other = await createTenant('Broken Credits', 'brokencredits');
    await t.ctx.db('tenant_settings').insert({ tenant_id: other, key: 'sms_credits', value: JSON.stringify('many') });
    expect((await support.get(`/api/tenants/${other}/settings/sms/credits`)).body).toEqual({ credits: 0 });
    expect((await admin.post(`/api/tenants/${other}/settings/sms/credits`).send({ credits: 7 })).body).toEqual({ credits: 7 });
  });
});

describe('invoice', () => {
  it('one row per active tenant: user count, functions, integrations and the fee 2850 + 275 per user beyond the first', async () => {
    const none = await createTenant('Inv None', 'invnone');
    const one = await createTenant('Inv One', 'invone');
    const many = await createTenant('Inv Many', 'invmany');
    const gone = await createTenant('Inv Gone', 'invgone');
    const later = await createTenant('Inv Later', 'invlater');
    await people(one, { users: 1, inactiveUsers: 2, stakeholders: 3 });
    await people(many, { users: 9, admins: 3, inactiveUsers: 1, stakeholders: 1 });
    await t.ctx.db('tenants').where({ id: gone }).update({ inactive_at: new Date(Date.now() - 86_400_000) });
    await t.ctx.db('tenants').where({ id: later }).update({ inactive_at: new Date(Date.now() + 86_400_000) });
    await admin.post(`/api/tenants/${many}/settings/sms`).send({ key: 'system_sms', value: { value: true } });
    await admin.post(`/api/tenants/${many}/settings`).send({ key: 'system_cronofy', value: { value: true } });
    await admin.post(`/api/tenants/${many}/settings`).send({ key: 'integrations', value: { alva: true, evali: true, sri: false } });
    await admin.post(`/api/tenants/${one}/settings/sms`).send({ key: 'system_sms', value: { value: false } });

    const res = await support.get('/api/invoice/');
    expect(res.status).toBe(200);
    const rows = new Map(res.body.map((row: { tenant_id: string }) => [row.tenant_id, row]));
    const off = { alva: false, refapp: false, sri: false, sri_ref: false, evali: false };
    expect(rows.get(none)).toEqual({ name: 'Inv None', tenant_id: none, user_count: 0, functions: { system_sms: false, system_cronofy: false }, integrations: off, fee: 2850 });
    expect(rows.get(one)).toEqual({ name: 'Inv One', tenant_id: one, user_count: 1, functions: { system_sms: false, system_cronofy: false }, integrations: off, fee: 2850 });
    expect(rows.get(many)).toEqual({
      name: 'Inv Many',
      tenant_id: many,
      user_count: 12,
      functions: { system_sms: true, system_cronofy: true },
      integrations: { ...off, alva: true, evali: true },
      fee: 2850 + 11 * 275,
    });
    expect(rows.has(gone)).toBe(false);
    expect(rows.has(later)).toBe(true);
    const names = res.body.map((row: { name: string }) => row.name);
    expect(names).toEqual([...names].sort(byLowerCase));
  });
});
