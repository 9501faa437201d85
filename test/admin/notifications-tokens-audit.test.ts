import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type request from 'supertest';
import { upsertClient } from '../../src/oidc/clients.ts';
import { createPortalSession } from '../../src/session/portal-session.ts';
import { createPersona, errorType, signIn, startAdminApp, type AdminTestApp, type Persona } from './harness.ts';

let t: AdminTestApp;
let admin: request.Agent;
let support: request.Agent;
let adminPersona: Persona;
let supportPersona: Persona;

beforeAll(async () => {
  t = await startAdminApp();
  adminPersona = await createPersona(t.ctx, { role: 'admin', totp: true });
  supportPersona = await createPersona(t.ctx, { role: 'support', totp: true });
  admin = await signIn(t, adminPersona);
  support = await signIn(t, supportPersona);
  await upsertClient(t.ctx.db, { client_id: 'tenant-app', redirect_uris: ['http://127.0.0.1:9/callback'], client_secret: 'tenant-app-secret-0123456789' });
});
afterAll(async () => {
  await t?.close();
});

async function tenant(slug: string, inactive = false): Promise<string> {
  const [row] = await t.ctx.db('tenants').insert({ name: slug, slug, inactive_at: inactive ? new Date(Date.now() - 1000) : null }).returning('id');
  return row.id;
}

/** Tokens as oidc-provider issues them after a sign-in at the tenant's app: a grant, then an access token under it. */
async function mintAccessToken(accountId: string, options: { expiresIn?: number } = {}): Promise<{ token: string; grantId: string }> {
  const client = await t.provider.Client.find('tenant-app');
  const grant = new t.provider.Grant({ accountId, clientId: 'tenant-app' });
  grant.addOIDCScope('openid email');
  const grantId = await grant.save();
  const accessToken = new t.provider.AccessToken({ accountId, client: client!, grantId, scope: 'openid email', gty: 'authorization_code' });
  // oidc-provider's models read their lifetime from `expiresIn` (the typings omit it).
  if (options.expiresIn !== undefined) (accessToken as unknown as { expiresIn: number }).expiresIn = options.expiresIn;
  return { token: await accessToken.save(), grantId };
}

describe('notifications', () => {
  let acme: string;
  let nordic: string;

  beforeAll(async () => {
    acme = await tenant('notifacme');
    nordic = await tenant('notifnordic');
  });

  it('sends one (201 {id}), stored with the operator, listed newest first, audited', async () => {
    const res = await support
      .post('/api/notification/')
      .send({ message: '  New search filters are live  ', admins_only: false, tenants: [acme], popup: true, new_functionality: true });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['id']);
    const row = await t.ctx.db('notifications').where({ id: res.body.id }).first();
    expect(row).toMatchObject({ message: 'New search filters are live', admins_only: false, tenants: [acme], popup: true, new_functionality: true, created_by: supportPersona.id });
    const list = await support.get('/api/notification/');
    expect(list.body[0]).toMatchObject({ id: res.body.id, message: 'New search filters are live', tenants: [acme] });
    const audit = await t.ctx.db('audit_events').where({ action: 'operator.notification.sent', actor_id: supportPersona.id }).first();
    expect(audit.details).toMatchObject({ notification_id: res.body.id, tenants: [acme], admins_only: false, popup: true });
  });

  it('defaults the flags and sends to every tenant when none are named', async () => {
    const res = await support.post('/api/notification/').send({ message: 'Maintenance tonight' });
    expect(res.status).toBe(201);
    expect(await t.ctx.db('notifications').where({ id: res.body.id }).first()).toMatchObject({ admins_only: false, tenants: [], popup: false, new_functionality: false });
  });

  it.each([
    ['no message', {}],
    ['an empty message', { message: '' }],
    ['a blank message', { message: '   ' }],
    ['a message over 2000 characters', { message: 'x'.repeat(2001) }],
    ['tenants that are not ids', { message: 'Hi', tenants: ['acme'] }],
    ['a flag as text', { message: 'Hi', popup: 'yes' }],
    ['an unknown field', { message: 'Hi', color: 'red' }],
  ])('refuses %s with 422', async (_label, body) => {
    const res = await support.post('/api/notification/').send(body);
    expect([res.status, errorType(res)]).toEqual([422, 'validation_error']);
  });

  it('refuses a tenant id naming no tenant, and stores nothing', async () => {
    const before = (await t.ctx.db('notifications').count<{ count: string }[]>('* as count'))[0]!.count;
    const res = await support.post('/api/notification/').send({ message: 'Hi', tenants: [acme, '11111111-1111-4111-8111-111111111111'] });
    expect([res.status, res.body.detail[0].loc]).toEqual([422, ['tenants', 1]]);
    expect((await t.ctx.db('notifications').count<{ count: string }[]>('* as count'))[0]!.count).toBe(before);
  });

  describe('read by tenant apps with an access token', () => {
    let member: Persona;
    let tenantAdmin: Persona;
    let outsider: Persona;
    let revoked: Persona;

    beforeAll(async () => {
      member = await createPersona(t.ctx);
      tenantAdmin = await createPersona(t.ctx);
      outsider = await createPersona(t.ctx);
      revoked = await createPersona(t.ctx);
      await t.ctx.db('tenant_access').insert([
        { account_id: member.id, tenant_id: acme, role: 'user' },
        { account_id: tenantAdmin.id, tenant_id: acme, role: 'admin' },
        { account_id: outsider.id, tenant_id: nordic, role: 'user' },
        { account_id: revoked.id, tenant_id: acme, role: 'user', active: false },
      ]);
      await t.ctx.db('notifications').delete();
      const send = (body: Record<string, unknown>) => support.post('/api/notification/').send(body).expect(201);
      await send({ message: 'for everyone' });
      // A tenant id in capitals is the same tenant (ids are stored and matched in lower case).
      await send({ message: 'for acme', tenants: [acme.toUpperCase()] });
      await send({ message: 'for acme admins', tenants: [acme], admins_only: true });
      await send({ message: 'for nordic', tenants: [nordic] });
      await send({ message: 'for all admins', admins_only: true });
    });

    const read = (token: string | null, tenantId: string) => {
      const req = t.agent().get(`/api/notifications?tenant=${tenantId}`);
      return token ? req.set('Authorization', `Bearer ${token}`) : req;
    };
    const messages = (res: { body: { message: string }[] }) => res.body.map((n) => n.message).sort();

    it('a member gets the tenant and all-tenant notifications, not admins_only ones', async () => {
      const res = await read((await mintAccessToken(member.id)).token, acme);
      expect(res.status).toBe(200);
      expect(messages(res)).toEqual(['for acme', 'for everyone']);
      expect(Object.keys(res.body[0]).sort()).toEqual(['admins_only', 'created_at', 'id', 'message', 'new_functionality', 'popup']);
      expect(messages(await read((await mintAccessToken(member.id)).token, acme.toUpperCase()))).toEqual(['for acme', 'for everyone']);
    });

    it('a tenant admin also gets admins_only ones', async () => {
      const res = await read((await mintAccessToken(tenantAdmin.id)).token, acme);
      expect(messages(res)).toEqual(['for acme', 'for acme admins', 'for all admins', 'for everyone']);
    });

    it('403 without active access to the tenant (another tenant, access switched off, tenant deactivated)', async () => {
      expect(errorType(await read((await mintAccessToken(outsider.id)).token, acme))).toBe('forbidden');
      expect(errorType(await read((await mintAccessToken(revoked.id)).token, acme))).toBe('forbidden');
      const closed = await tenant('notifclosed', true);
      await t.ctx.db('tenant_access').insert({ account_id: member.id, tenant_id: closed });
      expect(errorType(await read((await mintAccessToken(member.id)).token, closed))).toBe('forbidden');
    });

    it('401 without a token, with an unknown, expired or revoked one, or with only a console session', async () => {
      const none = await read(null, acme);
      expect([none.status, errorType(none), none.headers['www-authenticate']]).toEqual([401, 'invalid_token', 'Bearer']);
      const unknown = await read('x'.repeat(43), acme);
      expect([unknown.status, unknown.headers['www-authenticate']]).toEqual([401, 'Bearer error="invalid_token"']);
      const { token, grantId } = await mintAccessToken(member.id);
      expect((await read(token, acme)).status).toBe(200);
      await (await t.provider.Grant.find(grantId))!.destroy();
      expect((await read(token, acme)).status).toBe(401);
      const soon = await mintAccessToken(member.id, { expiresIn: 1 });
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect((await read(soon.token, acme)).status).toBe(401);
      expect((await support.get(`/api/notifications?tenant=${acme}`)).status).toBe(401);
    });

    it('422 without a valid tenant id', async () => {
      const { token } = await mintAccessToken(member.id);
      expect((await read(token, 'acme')).status).toBe(422);
      expect((await t.agent().get('/api/notifications').set('Authorization', `Bearer ${token}`)).status).toBe(422);
    });
  });
});

describe('tokens of an account', () => {
  it('lists live store entries with ttl, labelled without ever showing a token or session id; audited', async () => {
    const person = await createPersona(t.ctx);
    const { token, grantId } = await mintAccessToken(person.id);
    const portal = await createPortalSession(t.ctx, { account_id: person.id, email: person.email, amr: ['pwd'], auth_time: 0, ip: null, user_agent: null });

    const res = await support.get(`/api/tokens/${person.id}`);
    expect(res.status).toBe(200);
    const models = res.body.map((entry: { model: string }) => entry.model).sort();
    expect(models).toEqual(['AccessToken', 'Grant', 'PortalSession']);
    for (const entry of res.body) {
      expect(entry.key).toMatch(/^(AccessToken|Grant|PortalSession):[0-9a-f]{12}$/);
      expect(entry.ttl).toBeGreaterThan(0);
      expect(Object.keys(entry).sort()).toEqual(['client_id', 'ip', 'key', 'last_seen_at', 'methods', 'model', 'signed_in_at', 'ttl', 'user_agent']);
    }
    const access = res.body.find((entry: { model: string }) => entry.model === 'AccessToken');
    expect(access.ttl).toBeLessThanOrEqual(3600);
    expect(access.client_id).toBe('tenant-app');
    const body = JSON.stringify(res.body);
    for (const secret of [token, grantId, portal.id]) {
      expect(body).not.toContain(secret);
      expect(body).not.toContain(secret.slice(0, 12));
    }
    // Labels are stable, so two views can be compared.
    expect((await support.get(`/api/tokens/${person.id}`)).body.map((e: { key: string }) => e.key).sort()).toEqual(
      res.body.map((e: { key: string }) => e.key).sort(),
    );

    const audit = await t.ctx.db('audit_events').where({ action: 'operator.tokens.viewed', target_account_id: person.id });
    expect(audit).toHaveLength(2);
    expect(audit[0]).toMatchObject({ actor_id: supportPersona.id, details: { count: 3, role: 'support' } });
    expect(JSON.stringify(audit)).not.toContain(token);
  });

  it('a portal session shows when it ends: its idle timeout without "remember me", else its 12 h', async () => {
    const person = await createPersona(t.ctx);
    const base = { account_id: person.id, email: person.email, amr: ['pwd'], auth_time: 0, ip: null, user_agent: null };
    await createPortalSession(t.ctx, base);
    await createPortalSession(t.ctx, { ...base, persistent: true });
    const sessions = (await support.get(`/api/tokens/${person.id}`)).body.filter((entry: { model: string }) => entry.model === 'PortalSession');
    const ttls = sessions.map((entry: { ttl: number }) => entry.ttl).sort((a: number, b: number) => a - b);
    const idle = t.ctx.config.sessionIdleMinutes * 60;
    expect(ttls).toHaveLength(2);
    expect(ttls[0]).toBeGreaterThan(idle - 5);
    expect(ttls[0]).toBeLessThanOrEqual(idle);
    expect(ttls[1]).toBeGreaterThan(12 * 3600 - 5);
    expect(ttls[1]).toBeLessThanOrEqual(12 * 3600);
  });

  it('an account without entries has an empty list; an unknown one 404', async () => {
    const person = await createPersona(t.ctx);
    expect((await support.get(`/api/tokens/${person.id}`)).body).toEqual([]);
    expect((await support.get('/api/tokens/22222222-2222-4222-8222-222222222222')).status).toBe(404);
  });
});

describe('audit log', () => {
  it('answers operator events newest first, with actor and target emails, filtered', async () => {
    const person = await createPersona(t.ctx);
    await support.post(`/api/accounts/${person.id}/reset-password`).expect(200);
    await support.get(`/api/tokens/${person.id}`).expect(200);

    const res = await admin.get(`/api/audit?target=${person.id}`);
    expect(res.status).toBe(200);
    expect(res.body.map((e: { action: string }) => e.action)).toEqual(['operator.tokens.viewed', 'operator.password_reset.sent']);
    expect(res.body[0]).toMatchObject({
      id: expect.any(String),
      at: expect.any(String),
      actor_id: supportPersona.id,
      actor_email: supportPersona.email,
      target_account_id: person.id,
      target_email: person.email,
      tenant_id: null,
      ip: expect.any(String),
      details: { role: 'support', count: 0 },
    });
    expect(res.body[0].user_agent === null || typeof res.body[0].user_agent === 'string').toBe(true);

    const byAction = await admin.get(`/api/audit?actor=${supportPersona.id}&action=operator.password_reset.sent&limit=1`);
    expect(byAction.body).toHaveLength(1);
    expect(byAction.body[0].target_account_id).toBe(person.id);
    const future = await admin.get(`/api/audit?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`);
    expect(future.body).toEqual([]);
    expect((await admin.get('/api/audit?actor=&target=&action=&since=')).status).toBe(200);
  });

  it.each([['actor=me'], ['since=yesterday'], ['limit=0'], ['limit=501'], ['action=DROP%20TABLE'], ['other=1']])('refuses ?%s with 422', async (query) => {
    expect((await admin.get(`/api/audit?${query}`)).status).toBe(422);
  });

  it('support may not read it', async () => {
    expect(errorType(await support.get('/api/audit'))).toBe('forbidden');
  });
});
