import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { spendIpBudget } from '../helpers/ip-budget.ts';
import { createAccount } from '../login/fixtures.ts';
import { atProvider, errorOf, googleVerified, locationOf, startLogin, toProvider } from './journey.ts';
import { startUpstream, type TestUpstream } from './upstream-provider.ts';

/**
 * The Google and Microsoft routes are browser redirects: over the per-IP budget they answer like
 * every other refusal there, a 303 to the page the person came from with
 * `?error=too_many_requests` (which the portal translates), not a JSON body shown raw in the browser.
 * Only calls of the browser's own sign-in spend it: a request without its cookies (another site's
 * <img>) is refused as what it is and spends nothing. Behind one proxy, so the test's address is
 * its own (X-Forwarded-For).
 */
let t: TestApp;
let google: TestUpstream;

beforeAll(async () => {
  google = await startUpstream({ kind: 'google', nyckelOrigin: 'http://127.0.0.1:3000' });
  t = await startTestApp({ env: { ...google.env, TRUST_PROXY: '1' } });
});
afterAll(async () => {
  await t?.close();
  await google?.close();
});

let addresses = 100;


describe('the per-IP budget on the upstream routes', () => {
  it('is answered with a redirect carrying too_many_requests, keeping the login session, at the start and the callback', async () => {
    const ip = '203.0.113.80';
    const account = await createAccount(t.ctx.db, { password: 'Correct-Horse-42!' });
    const browser = t.agent().set('X-Forwarded-For', ip);
    const sessionId = await startLogin(browser, account.email);
    // A trip to Google begun while the budget lasted comes back after it was spent.
    const callback = await atProvider(google, await toProvider(browser, `/auth/login/oauth/google?session_id=${sessionId}`), { account: { sub: 'rate-limited', ...googleVerified(account.email) } });
    await spendIpBudget(t.ctx, ip);

    const start = await browser.get(`/auth/login/oauth/google?session_id=${sessionId}`).redirects(0);
    const location = locationOf(start);
    expect(errorOf(location)).toBe('too_many_requests');
    expect(location).toContain(`session_id=${sessionId}`);
    expect(start.headers['content-type'] ?? '').not.toContain('json');
    expect(errorOf(locationOf(await browser.get(`${callback.pathname}${callback.search}`).redirects(0)))).toBe('too_many_requests');
  });

  it.each([
    ['the start', '/auth/login/oauth/google?session_id=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'login_session_missing'],
    ['the start after an email code', '/auth/login/link/oauth/google?session_id=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'login_session_missing'],
    ['the callback', '/auth/oauth/callback/google?code=x&state=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'oauth/state_mismatch'],
  ])('is not spent by %s without the browser’s cookies: another site cannot lock the address out of signing in', async (_name, path, error) => {
    const ip = `203.0.113.${(addresses += 1)}`;
    const browser = t.agent().set('X-Forwarded-For', ip);
    const account = await createAccount(t.ctx.db, { password: 'Correct-Horse-42!' });
    // One point left for the person's own sign-in.
    await spendIpBudget(t.ctx, ip, 1);

    for (let i = 0; i < 5; i += 1) {
      const res = await t.agent().get(path).set('X-Forwarded-For', ip).set('Sec-Fetch-Site', 'cross-site').redirects(0);
      expect(errorOf(locationOf(res))).toBe(error);
    }
    await startLogin(browser, account.email);
  });
});
