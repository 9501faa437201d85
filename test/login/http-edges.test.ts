import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount, uniqueEmail } from './fixtures.ts';
import { errorType, signInWithPassword, start } from './journey.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const loginCalls = [
  '/auth/login/start',
  '/auth/login/verify-password',
  '/auth/login/verify-otp',
  '/auth/login/resend-otp',
  '/auth/login/create-password',
  '/auth/login/skip-create-password',
  '/auth/login/verify-mfa',
  '/auth/login/merge-mfa',
  '/auth/reset/request',
  '/auth/reset/check-token',
  '/auth/reset/confirm',
];

describe('bad input is a 4xx, never a 5xx', () => {
  it.each(loginCalls)('%s: oversized body 413, malformed JSON 400, wrong types 422', async (path) => {
    const big = await t.agent().post(path).set('Content-Type', 'application/json').send(JSON.stringify({ email: 'a'.repeat(20_000) }));
    expect([big.status, errorType(big)]).toEqual([413, 'payload_too_large']);
    const malformed = await t.agent().post(path).set('Content-Type', 'application/json').send('{"email": ');
    expect([malformed.status, errorType(malformed)]).toEqual([400, 'malformed_body']);
    const wrongTypes = await t.agent().post(path).send({ email: 42, session_id: ['x'], password: {}, otp: 123456, token: null, totp_code: true });
    expect([wrongTypes.status, errorType(wrongTypes)]).toEqual([422, 'validation_error']);
    const empty = await t.agent().post(path);
    expect(empty.status).toBe(422);
  });

  it('a password over 1024 characters is refused before hashing (422)', async () => {
    const account = await createAccount(t.ctx.db, { password: 'Correct-Horse-9' });
    const browser = t.agent();
    const { body } = await start(browser, account.email);
    const res = await browser.post('/auth/login/verify-password').send({ session_id: body.session_id, email: account.email, password: 'x'.repeat(1025) });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ type: 'validation_error', loc: ['password'] });
  });

  it('a 1024-character password is checked (and is simply wrong)', async () => {
    const account = await createAccount(t.ctx.db, { password: 'Correct-Horse-9' });
    const browser = t.agent();
    const { body } = await start(browser, account.email);
    const res = await browser.post('/auth/login/verify-password').send({ session_id: body.session_id, email: account.email, password: 'x'.repeat(1024) });
    expect(errorType(res)).toBe('invalid_credentials');
  });

  it('an OTP that is not 6 digits is a validation error', async () => {
    const res = await t.agent().post('/auth/login/verify-otp').send({ session_id: 'x', email: 'a@example.com', otp: '12345a' });
    expect([res.status, errorType(res)]).toEqual([422, 'validation_error']);
  });

  it('repeated query parameters at start are a validation error', async () => {
    const res = await t.agent().post('/auth/login/start?client_id=a&client_id=b').send({ email: uniqueEmail() });
    expect(res.status).toBe(422);
  });
});

describe('cross-site requests', () => {
  it.each(loginCalls)('%s refuses a foreign Origin (403)', async (path) => {
    const res = await t.agent().set('Origin', 'https://evil.example').post(path).send({ email: uniqueEmail() });
    expect([res.status, errorType(res)]).toEqual([403, 'cross_site_request']);
  });

  // Plain request(t.server), not t.agent(): the agent sends our own Origin.
  it.each(loginCalls)('%s refuses Sec-Fetch-Site: cross-site without Origin or Referer (403)', async (path) => {
    const res = await request(t.server).post(path).set('Sec-Fetch-Site', 'cross-site').send({ email: uniqueEmail() });
    expect([res.status, errorType(res)]).toEqual([403, 'cross_site_request']);
  });

  it.each([
    ['Sec-Fetch-Site: same-origin', { 'Sec-Fetch-Site': 'same-origin' }],
    ['Sec-Fetch-Site: none', { 'Sec-Fetch-Site': 'none' }],
    ['no Sec-Fetch-Site (curl)', {}],
  ])('without Origin or Referer, %s passes the check', async (_name, headers: Record<string, string>) => {
    const res = await request(t.server).post('/auth/login/start').set(headers).send({ email: uniqueEmail() });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ session_id: expect.any(String) });
  });
});

describe('missing or foreign login sessions', () => {
  it('calls without a login session are login_session_missing (401)', async () => {
    const res = await t.agent().post('/auth/login/resend-otp').send({ session_id: 'does-not-exist' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: [{ type: 'login_session_missing', msg: 'Login session is expired' }] });
  });

  it('an expired login session is login_session_missing', async () => {
    const account = await createAccount(t.ctx.db, { password: 'Correct-Horse-9' });
    const browser = t.agent();
    const { body } = await start(browser, account.email);
    t.ctx.advance((t.ctx.config.loginSessionTtl + 1) * 1000);
    const res = await browser.post('/auth/login/verify-password').send({ session_id: body.session_id, email: account.email, password: 'Correct-Horse-9' });
    expect(errorType(res)).toBe('login_session_missing');
  });

  it('ping answers null for no session, a foreign one, or a malformed id — never 4xx', async () => {
    const fresh = await t.agent().get('/auth/login/ping');
    expect([fresh.status, fresh.body]).toEqual([200, { session: null, email: null }]);
    const foreign = await t.agent().post('/auth/login/ping?session_id=somebody-elses');
    expect([foreign.status, foreign.body]).toEqual([200, { session: null, email: null }]);
    const malformed = await t.agent().get(`/auth/login/ping?session_id=${'x'.repeat(500)}`);
    expect([malformed.status, malformed.body]).toEqual([200, { session: null, email: null }]);
  });

  it('ping shows the login session in progress, and the signed-in email after Done', async () => {
    const account = await createAccount(t.ctx.db, { password: 'Correct-Horse-9' });
    const browser = t.agent();
    const { body } = await start(browser, account.email);
    const during = await browser.get(`/auth/login/ping?session_id=${body.session_id}`);
    expect(during.body).toEqual({ session: body, email: account.email });
    const withoutId = await browser.post('/auth/login/ping');
    expect(withoutId.body.session).toEqual(body);
    await browser.post('/auth/login/verify-password').send({ session_id: body.session_id, email: account.email, password: 'Correct-Horse-9' });
    expect((await browser.get('/auth/login/ping')).body).toEqual({ session: null, email: account.email });
  });

  it('a tampered session cookie is ignored', async () => {
    const account = await createAccount(t.ctx.db, { password: 'Correct-Horse-9' });
    const done = await signInWithPassword(t.agent(), account.email, 'Correct-Horse-9');
    const cookie = ([] as string[]).concat(done.headers['set-cookie'] ?? []).find((c) => c.startsWith('nyckel_session='))!;
    const value = cookie.split(';')[0]!.split('=')[1]!;
    const forged = value.replace(/.(?=\.)/, (c) => (c === 'A' ? 'B' : 'A'));
    const res = await t.agent().get('/auth/login/ping').set('Cookie', `nyckel_session=${forged}`);
    expect(res.body).toEqual({ session: null, email: null });
    const genuine = await t.agent().get('/auth/login/ping').set('Cookie', `nyckel_session=${value}`);
    expect(genuine.body.email).toBe(account.email);
  });
});

describe('rate limits', () => {
  it('a spent budget answers too_many_requests with Retry-After, on the configured store', async () => {
    const { createRateLimits } = await import('../../src/http/rate-limit.ts');
    const limits = createRateLimits(t.ctx, { ip: { points: 2, duration: 60 }, email: { points: 1, duration: 60 }, mail: { points: 1, duration: 60 } });
    await limits.consume('ip', '192.0.2.1');
    await limits.consume('ip', '192.0.2.1');
    await limits.consume('ip', '192.0.2.2');
    const err = await limits.consume('ip', '192.0.2.1').catch((e: unknown) => e);
    expect(err).toMatchObject({ type: 'too_many_requests', status: 429, headers: { 'Retry-After': expect.stringMatching(/^\d+$/) } });
    await limits.consume('email', 'Someone@Example.com');
    await expect(limits.consume('email', ' someone@example.com')).rejects.toMatchObject({ type: 'too_many_requests' });
  });

  it('an IPv6 sender\'s budget is its /64: hopping between its addresses buys nothing', async () => {
    const { createRateLimits } = await import('../../src/http/rate-limit.ts');
    const limits = createRateLimits(t.ctx, { ip: { points: 2, duration: 60 }, email: { points: 1, duration: 60 }, mail: { points: 1, duration: 60 } });
    await limits.consume('ip', '2001:db8:7:1::1');
    await limits.consume('ip', '2001:db8:7:1::2');
    await expect(limits.consume('ip', '2001:db8:7:1:ffff::3')).rejects.toMatchObject({ type: 'too_many_requests' });
    // The neighbouring /64 is another sender.
    await limits.consume('ip', '2001:db8:7:2::1');
  });
});
