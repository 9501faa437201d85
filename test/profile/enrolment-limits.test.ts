import request, { type Response } from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { spendIpBudget } from '../helpers/ip-budget.ts';
import { uniqueEmail } from '../login/fixtures.ts';
import { createTotpAccount, signIn } from '../totp/helpers.ts';

/**
 * Adding a second factor from the profile spends the per-IP budget of the sign-in calls, as the
 * sign-in and reset calls do: once it is spent, TOTP enrolment, passkey registration, sign-in
 * start, password verification and reset requests answer 429 `too_many_requests`. Behind one
 * proxy, so each case comes from an address of its own (X-Forwarded-For).
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { TRUST_PROXY: '1' } });
});
afterAll(async () => {
  await t?.close();
});

type Browser = ReturnType<TestApp['agent']>;

let addresses = 0;

/** Spends the address's budget to its last point. */
/** A person signed in from an address of their own whose budget has one point left. */
async function atLastPoint(): Promise<{ ip: string; browser: Browser }> {
  addresses += 1;
  const ip = `203.0.113.${addresses}`;
  const account = await createTotpAccount(t.ctx, { totp: 0 });
  const browser = t.agent().set('X-Forwarded-For', ip);
  await signIn(t.ctx, browser, account);
  await spendIpBudget(t.ctx, ip, 1);
  return { ip, browser };
}

it.each([
  ['GET /auth/tfa/setup', (browser: Browser) => browser.get('/auth/tfa/setup')],
  ['GET /auth/qrcode', (browser: Browser) => browser.get('/auth/qrcode')],
  ['POST /auth/tfa/activate', (browser: Browser) => browser.post('/auth/tfa/activate').send({ totp_code: '123456' })],
  ['POST /auth/passkeys/options', (browser: Browser) => browser.post('/auth/passkeys/options').send({})],
  ['POST /auth/passkeys/verify', (browser: Browser) => browser.post('/auth/passkeys/verify').send({ response: {} })],
  // The sign-in and reset calls themselves (src/login/login.routes.ts, reset.routes.ts), whose
  // budget this is: spent before the body is even read.
  ['POST /auth/login/start', (browser: Browser) => browser.post('/auth/login/start').send({ email: uniqueEmail('budget') })],
  [
    'POST /auth/login/verify-password',
    (browser: Browser) => browser.post('/auth/login/verify-password').send({ session_id: 'no-such-session', email: uniqueEmail('budget'), password: 'Wrong-Horse-9' }),
  ],
  ['POST /auth/reset/request', (browser: Browser) => browser.post('/auth/reset/request').send({ email: uniqueEmail('budget') })],
])('%s spends a point of the per-IP budget, and answers 429 too_many_requests once it is spent', async (_name, call: (browser: Browser) => Promise<Response>) => {
  const { browser } = await atLastPoint();

  expect((await call(browser)).status).not.toBe(429);
  const refused = await call(browser);
  expect({ status: refused.status, body: refused.body }).toEqual({
    status: 429,
    body: { detail: [{ type: 'too_many_requests', msg: 'Too many requests, try again later' }] },
  });
  expect(refused.headers['retry-after']).toMatch(/^\d+$/);
});

it.each([
  ['GET /auth/tfa/setup', '/auth/tfa/setup'],
  ['GET /auth/qrcode', '/auth/qrcode'],
])('%s without the session cookie (another site’s <img>) is 401 and spends nothing of the budget', async (_name, path) => {
  const { ip, browser } = await atLastPoint();

  for (let i = 0; i < 5; i += 1) {
    const res = await request(t.server).get(path).set('X-Forwarded-For', ip).set('Sec-Fetch-Site', 'cross-site');
    expect(res.status).toBe(401);
  }
  expect((await browser.get(path)).status).toBe(200);
});
