import { randomBytes, randomUUID } from 'node:crypto';
import type request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import cookieParser from 'cookie-parser';
import { createPersona, errorType, sessionBrowser, signCookie, signIn, startAdminApp, type AdminTestApp, type Persona } from './harness.ts';

let t: AdminTestApp;
let tenantId: string;
let target: Persona;
const browsers: Record<string, request.Agent> = {};

beforeAll(async () => {
  t = await startAdminApp();
  const [row] = await t.ctx.db('tenants').insert({ name: 'Matrix Tenant', slug: 'matrix' }).returning('id');
  tenantId = row.id;
  target = await createPersona(t.ctx, { name: 'Target Person' });
  await t.ctx.db('tenant_access').insert({ account_id: target.id, tenant_id: tenantId });

  // Everyone signs in through the real login API (password, then the authenticator code).
  const personas = {
    user: await createPersona(t.ctx, { kind: 'user', totp: true }),
    stakeholder: await createPersona(t.ctx, { kind: 'stakeholder' }),
    passwordOnlyOperator: await createPersona(t.ctx, { role: 'admin' }),
    support: await createPersona(t.ctx, { role: 'support', totp: true }),
    admin: await createPersona(t.ctx, { role: 'admin', totp: true }),
  };
  for (const [name, persona] of Object.entries(personas)) browsers[name] = await signIn(t, persona);
  browsers.anonymous = t.agent();
});
afterAll(async () => {
  await t?.close();
});

type Role = 'support' | 'admin';
interface Endpoint {
  method: 'get' | 'post' | 'delete';
  path: () => string;
  body?: () => Record<string, unknown>;
  role: Role;
  /** What the allowed role gets. */
  ok: number;
}

const slug = () => `t${randomBytes(4).toString('hex')}`;

/** Every console endpoint of spec section 7 (plus /api/operator and /api/audit), with the role it needs. */
const endpoints: Endpoint[] = [
  { method: 'get', path: () => '/api/operator', role: 'support', ok: 200 },
  { method: 'get', path: () => '/api/accounts/', role: 'support', ok: 200 },
  { method: 'get', path: () => '/api/accounts/search/target', role: 'support', ok: 200 },
  // Admin only: a listed link lets its reader set the account's password.
  { method: 'get', path: () => '/api/accounts/password-resets', role: 'admin', ok: 200 },
  { method: 'post', path: () => `/api/accounts/${target.id}/reset-password`, role: 'support', ok: 200 },
  { method: 'delete', path: () => `/api/accounts/${target.id}/credentials/${randomUUID()}`, role: 'admin', ok: 404 },
  { method: 'get', path: () => '/api/invoice/', role: 'support', ok: 200 },
  { method: 'get', path: () => '/api/tenants/', role: 'support', ok: 200 },
  { method: 'get', path: () => '/api/tenants/search/matrix', role: 'support', ok: 200 },
  { method: 'post', path: () => '/api/tenants', body: () => ({ name: 'New', slug: slug() }), role: 'admin', ok: 201 },
  { method: 'get', path: () => `/api/tenants/${tenantId}`, role: 'support', ok: 200 },
  { method: 'get', path: () => `/api/tenants/${tenantId}/users`, role: 'support', ok: 200 },
  { method: 'get', path: () => `/api/tenants/${tenantId}/settings`, role: 'support', ok: 200 },
  { method: 'post', path: () => `/api/tenants/${tenantId}/settings`, body: () => ({ key: 'theme', value: 'dark' }), role: 'admin', ok: 200 },
  { method: 'get', path: () => `/api/tenants/${tenantId}/settings/sms`, role: 'support', ok: 200 },
  { method: 'post', path: () => `/api/tenants/${tenantId}/settings/sms`, body: () => ({ key: 'system_sms', value: { value: true } }), role: 'admin', ok: 200 },
  { method: 'get', path: () => `/api/tenants/${tenantId}/settings/sms/credits`, role: 'support', ok: 200 },
  { method: 'post', path: () => `/api/tenants/${tenantId}/settings/sms/credits`, body: () => ({ credits: 10 }), role: 'admin', ok: 200 },
  { method: 'post', path: () => '/api/notification/', body: () => ({ message: 'Hello', admins_only: false, tenants: [], popup: false, new_functionality: false }), role: 'support', ok: 201 },
  { method: 'get', path: () => '/api/notification/', role: 'support', ok: 200 },
  { method: 'get', path: () => `/api/tokens/${target.id}`, role: 'support', ok: 200 },
  { method: 'get', path: () => '/api/audit', role: 'admin', ok: 200 },
];

function call(browser: request.Agent, endpoint: Endpoint) {
  const req = browser[endpoint.method](endpoint.path());
  return endpoint.body ? req.send(endpoint.body()) : req;
}

describe.each(endpoints)('$method $role-only endpoint', (endpoint) => {
  const label = () => `${endpoint.method.toUpperCase()} ${endpoint.path()}`;

  it('anonymous: 401 unauthorized', async () => {
    const res = await call(browsers.anonymous!, endpoint);
    expect([res.status, errorType(res)], label()).toEqual([401, 'unauthorized']);
  });

  it('a signed-in user or stakeholder without an operator role: 403 forbidden', async () => {
    for (const who of ['user', 'stakeholder']) {
      const res = await call(browsers[who]!, endpoint);
      expect([res.status, errorType(res)], `${who} ${label()}`).toEqual([403, 'forbidden']);
    }
  });

  it('an operator signed in with a password only: 403 operator/mfa-required', async () => {
    const res = await call(browsers.passwordOnlyOperator!, endpoint);
    expect(res.status, label()).toBe(403);
    expect(res.body).toEqual({ detail: [{ type: 'operator/mfa-required', msg: 'Sign in with your second factor to use the console' }] });
  });

  it('support: allowed reads and support actions, 403 on admin-only', async () => {
    const res = await call(browsers.support!, endpoint);
    if (endpoint.role === 'support') expect(res.status, label()).toBe(endpoint.ok);
    else expect([res.status, errorType(res)], label()).toEqual([403, 'forbidden']);
  });

  it('admin: allowed', async () => {
    const res = await call(browsers.admin!, endpoint);
    expect(res.status, `${label()} ${JSON.stringify(res.body)}`).toBe(endpoint.ok);
  });
});

describe('the operator gate', () => {
  it('names the signed-in operator and role', async () => {
    const res = await browsers.support!.get('/api/operator');
    expect(res.body).toEqual({ id: expect.any(String), email: expect.stringMatching(/^support-/), role: 'support' });
  });

  it('a revoked role takes effect on the next call; a changed role too', async () => {
    const operator = await createPersona(t.ctx, { role: 'admin' });
    const browser = await sessionBrowser(t, operator, ['pwd', 'otp', 'mfa']);
    expect((await browser.get('/api/audit')).status).toBe(200);
    await t.ctx.db('operator_roles').where({ account_id: operator.id }).update({ role: 'support' });
    expect(errorType(await browser.get('/api/audit'))).toBe('forbidden');
    await t.ctx.db('operator_roles').where({ account_id: operator.id }).delete();
    expect(errorType(await browser.get('/api/invoice/'))).toBe('forbidden');
  });

  it('a security key (amr hwk) counts as a second factor; an email code (otp) alone does not', async () => {
    const operator = await createPersona(t.ctx, { role: 'support' });
    expect((await (await sessionBrowser(t, operator, ['hwk'])).get('/api/invoice/')).status).toBe(200);
    expect(errorType(await (await sessionBrowser(t, operator, ['otp'])).get('/api/invoice/'))).toBe('operator/mfa-required');
  });

  it('a forged or unsigned session cookie is anonymous', async () => {
    const operator = await createPersona(t.ctx, { role: 'admin' });
    const real = await sessionBrowser(t, operator, ['pwd', 'otp', 'mfa']);
    expect((await real.get('/api/operator')).status).toBe(200);
    const signed = signCookie('guess', 'not-the-secret-not-the-secret-not-the-secret');
    const forged = await t.agent().set('Cookie', `nyckel_session=${encodeURIComponent(signed)}`).get('/api/operator');
    expect(forged.status).toBe(401);
    const unsigned = await t.agent().set('Cookie', 'nyckel_session=whatever').get('/api/operator');
    expect(unsigned.status).toBe(401);
  });

  it('the test signer matches cookie-parser', () => {
    const secret = t.ctx.config.cookieSecrets[0]!;
    expect(cookieParser.signedCookie(signCookie('abc', secret), [secret])).toBe('abc');
  });

  it('answers the spec paths with or without their trailing slash', async () => {
    for (const path of ['/api/accounts', '/api/invoice', '/api/tenants', '/api/notification']) {
      expect((await browsers.support!.get(path)).status, path).toBe(200);
    }
    const created = await browsers.admin!.post('/api/tenants/').send({ name: 'Slashed', slug: slug() });
    expect(created.status).toBe(201);
    expect((await browsers.support!.post('/api/notification').send({ message: 'No slash' })).status).toBe(201);
  });

  it('a state-changing call from another site is refused before anything happens', async () => {
    const res = await browsers.admin!.post('/api/tenants').set('Origin', 'https://evil.example').send({ name: 'Evil', slug: 'evil' });
    expect([res.status, errorType(res)]).toEqual([403, 'cross_site_request']);
    expect(await t.ctx.db('tenants').where({ slug: 'evil' })).toHaveLength(0);
  });
});
