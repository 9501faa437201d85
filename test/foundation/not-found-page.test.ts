import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { createTestContext, type TestContext } from '../helpers/context.ts';

const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('an address nothing serves', () => {
  let ctx: TestContext;
  let app: App;

  beforeAll(async () => {
    ctx = await createTestContext();
    app = await createApp(ctx);
  });
  afterAll(() => ctx?.dispose());

  it('is a page in the browser’s language for a browser, with the way back to sign-in', async () => {
    const en = await request(app.app).get('/nonexistent').set('Accept', browserAccept);
    expect([en.status, en.type]).toEqual([404, 'text/html']);
    expect(en.text).toContain('<title>Page not found</title>');
    expect(en.text).toContain('<a href="/login">Back to sign-in</a>');
    expect(en.headers['content-security-policy']).toContain("default-src 'none'");
    expect(en.headers['cache-control']).toBe('no-store');
    expect(en.headers.vary).toMatch(/(^|,\s*)accept(\s*,|$)/i);

    const sv = await request(app.app).get('/nonexistent/deeper?x=<b>').set('Accept', browserAccept).set('Accept-Language', 'sv-SE,sv;q=0.9,en;q=0.5');
    expect([sv.status, sv.type]).toEqual([404, 'text/html']);
    expect(sv.text).toContain('<html lang="sv">');
    expect(sv.text).toContain('Sidan finns inte');
    expect(sv.text).not.toContain('<b>');
  });

  it.each([
    ['an API caller', 'GET', 'application/json'],
    ['a caller saying nothing', 'GET', undefined],
    ['a script or image request', 'GET', '*/*'],
    ['a form post', 'POST', browserAccept],
  ])('is the JSON 404 for %s', async (_who, method, accept) => {
    const req = method === 'GET' ? request(app.app).get('/nonexistent') : request(app.app).post('/nonexistent');
    const res = accept ? await req.set('Accept', accept) : await req;
    expect([res.status, res.type]).toEqual([404, 'application/json']);
    expect(res.body).toEqual({ detail: [{ type: 'not_found', msg: 'Not found' }] });
  });

  it.each(['/api/nonexistent', '/auth/login/nonexistent', '/API/nonexistent', '/Auth/x'])('is the JSON 404 under the APIs, a browser asking or not: %s', async (path) => {
    const res = await request(app.app).get(path).set('Accept', browserAccept);
    expect(res.headers.vary).toMatch(/(^|,\s*)accept(\s*,|$)/i);
    expect([res.status, res.type]).toEqual([404, 'application/json']);
    expect(res.body).toEqual({ detail: [{ type: 'not_found', msg: 'Not found' }] });
  });
});
