import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant } from '../fixtures/accounts.ts';
import { BrowserLike } from '../helpers/browser-like.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { call, getJson, person, signedInBrowser } from './helpers.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  await server?.close();
});

const save = (browser: BrowserLike, body: unknown, headers?: Record<string, string>) => call(browser, 'POST', '/api/accounts/settings', body, headers);

describe('POST /api/accounts/settings', () => {
  it('saves the language: userinfo carries it and the change is audited', async () => {
    const { id, email } = await person(server);
    const browser = await signedInBrowser(server, email);
    // Never chosen: null, and the portal keeps the browser's language.
    expect((await getJson(browser, '/oauth2/userinfo')).body).toMatchObject({ locale: null });

    expect(await save(browser, { key: 'locale', value: 'sv' })).toEqual({ status: 200, body: { key: 'locale', value: 'sv' } });
    expect((await getJson(browser, '/oauth2/userinfo')).body).toMatchObject({ locale: 'sv' });
    const audit = await server.ctx.db('audit_events').where({ target_account_id: id, action: 'account.setting.changed' });
    expect(audit.map((a) => [a.actor_id, a.details])).toEqual([[id, { key: 'locale', value: 'sv' }]]);
  });

  it('saves the name trimmed; refuses empty, too long and control characters', async () => {
    const { email } = await person(server);
    const browser = await signedInBrowser(server, email);
    expect(await save(browser, { key: 'name', value: '  Åsa Öberg  ' })).toEqual({ status: 200, body: { key: 'name', value: 'Åsa Öberg' } });
    expect((await getJson(browser, '/oauth2/userinfo')).body).toMatchObject({ name: 'Åsa Öberg' });
    expect((await save(browser, { key: 'name', value: '😀'.repeat(100) })).status).toBe(200);

    for (const value of ['', '   ', 'x'.repeat(101), '😀'.repeat(101), 'Eve\u0000', 'Eve\nAdmin', 'Eve\u202Egnp.exe', 42, null]) {
      const res = await save(browser, { key: 'name', value });
      expect([JSON.stringify(value), res.status, (res.body as { detail: { type: string }[] }).detail[0]!.type]).toEqual([
        JSON.stringify(value),
        422,
        'validation_error',
      ]);
    }
    expect((await getJson(browser, '/oauth2/userinfo')).body).toMatchObject({ name: '😀'.repeat(100) });
  });

  it('refuses unknown keys and languages with 422, never 500', async () => {
    const { email } = await person(server);
    const browser = await signedInBrowser(server, email);
    for (const body of [{ key: 'locale', value: 'de' }, { key: 'email', value: 'x@example.com' }, { key: 'is_user', value: true }, {}, []]) {
      expect([JSON.stringify(body), (await save(browser, body)).status]).toEqual([JSON.stringify(body), 422]);
    }
    // A JSON body that is not an object is refused by the parser (strict mode).
    expect((await save(browser, 'null')).status).toBe(400);
    expect((await getJson(browser, '/oauth2/userinfo')).body).toMatchObject({ email, locale: null });
  });

  it('refuses cross-site requests and bodies that are not JSON, changing nothing', async () => {
    const { email } = await person(server);
    const browser = await signedInBrowser(server, email);
    const crossSite = await save(browser, { key: 'locale', value: 'sv' }, { origin: 'https://evil.example' });
    expect([crossSite.status, crossSite.body]).toEqual([403, { detail: [{ type: 'cross_site_request', msg: 'Cross-site request refused' }] }]);
    const referer = await browser.request('/api/accounts/settings', {
      method: 'POST',
      headers: { 'content-type': 'application/json', referer: 'https://evil.example/page' },
      body: JSON.stringify({ key: 'locale', value: 'sv' }),
    });
    expect(referer.status).toBe(403);
    // What an HTML form on another site can send: no JSON content type.
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await browser.request('/api/accounts/settings', {
        method: 'POST',
        headers: { 'content-type': contentType },
        body: '{"key":"locale","value":"sv"}',
      });
      expect([contentType, res.status]).toEqual([contentType, 415]);
    }
    expect((await getJson(browser, '/oauth2/userinfo')).body).toMatchObject({ locale: null });
  });

  it('answers 401 without a session', async () => {
    const res = await save(new BrowserLike(server.base), { key: 'locale', value: 'sv' });
    expect([res.status, res.body]).toEqual([401, { detail: [{ type: 'unauthorized', msg: 'Authentication required' }] }]);
  });
});

describe('GET /api/accounts/activity', () => {
  it('lists the person’s own events newest first, with safe summaries only', async () => {
    const { id, email } = await person(server);
    const other = await person(server);
    const browser = await signedInBrowser(server, email);
    await save(browser, { key: 'locale', value: 'sv' });
    await save(browser, { key: 'name', value: 'New Name' });
    const tenantId = await createTenant(server.ctx.db, `acme${Date.now()}`, { name: 'Acme Recruiting' });
    const operatorId = (await person(server, 'operator')).id;
    await server.ctx.db('audit_events').insert([
      {
        action: 'operator.impersonation.started',
        actor_id: operatorId,
        target_account_id: id,
        tenant_id: tenantId,
        ip: '203.0.113.77',
        user_agent: 'OperatorBrowser/1.0',
        details: JSON.stringify({ operator_email: 'support-person@nyckel.example', role: 'admin', reason: 'Ticket 4711: cannot see candidates', as: 'user' }),
        at: new Date(Date.now() + 1000),
      },
      // Another person's event, and the person acting on someone else, are not theirs to see.
      { action: 'login.succeeded', actor_id: other.id, target_account_id: other.id, details: JSON.stringify({ method: 'password' }) },
      { action: 'operator.tokens.viewed', actor_id: id, target_account_id: other.id, details: JSON.stringify({ count: 3 }) },
    ]);
    await signedInBrowser(server, other.email);

    const res = await getJson<{ events: { action: string; by: string; details: Record<string, unknown> }[] }>(browser, '/api/accounts/activity');
    expect(res.status).toBe(200);
    expect(res.body.events.map((e) => [e.action, e.by, e.details])).toEqual([
      ['operator.impersonation.started', 'support', { tenant: 'Acme Recruiting', reason: 'Ticket 4711: cannot see candidates', as: 'user' }],
      ['account.setting.changed', 'you', { key: 'name' }],
      ['account.setting.changed', 'you', { key: 'locale', value: 'sv' }],
      ['login.succeeded', 'you', { method: 'password' }],
    ]);
    const text = JSON.stringify(res.body);
    for (const secret of ['203.0.113.77', 'OperatorBrowser', 'support-person@nyckel.example', operatorId, '127.0.0.1']) expect(text).not.toContain(secret);
  });

  it('keeps the last 20', async () => {
    const { id, email } = await person(server);
    const browser = await signedInBrowser(server, email);
    const base = Date.now() + 10_000;
    await server.ctx.db('audit_events').insert(
      Array.from({ length: 25 }, (_, i) => ({ action: 'login.failed', target_account_id: id, details: JSON.stringify({ method: 'password', reason: 'x' }), at: new Date(base + i) })),
    );
    const res = await getJson<{ events: { action: string; by: string; at: string }[] }>(browser, '/api/accounts/activity');
    expect(res.body.events).toHaveLength(20);
    expect(res.body.events[0]).toMatchObject({ action: 'login.failed', by: 'system', at: new Date(base + 24).toISOString() });
  });

  it('answers 401 without a session', async () => {
    expect((await getJson(new BrowserLike(server.base), '/api/accounts/activity')).status).toBe(401);
  });
});
