import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount } from '../login/fixtures.ts';
import { errorOf, locationOf, startLogin } from './journey.ts';

/**
 * The Google and Microsoft routes are browser redirects: over the per-IP budget they answer like
 * every other refusal there, a 303 to the page the person came from with
 * `?error=too_many_requests` (which the portal translates), not a JSON body shown raw in the browser.
 */
let t: TestApp;

beforeAll(async () => {
  // The provider is configured but never reached: the budget is checked before it.
  t = await startTestApp({ env: { GOOGLE_CLIENT_ID: 'nyckel', GOOGLE_CLIENT_SECRET: 'secret', GOOGLE_ISSUER: 'http://127.0.0.1:9' } });
});
afterAll(async () => {
  await t?.close();
});

const callback = '/auth/oauth/callback/google?code=x&state=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

describe('the per-IP budget on the upstream routes', () => {
  it('is answered with a redirect carrying too_many_requests, keeping the login session', async () => {
    const account = await createAccount(t.ctx.db, { password: 'Correct-Horse-42!' });
    const browser = t.agent();
    const sessionId = await startLogin(browser, account.email);

    // Spend this address's budget: every callback costs a point, and is refused as a state mismatch until none is left.
    let spent = false;
    for (let i = 0; i < 400 && !spent; i += 1) {
      const res = await t.agent().get(callback).redirects(0);
      const error = errorOf(locationOf(res));
      expect(['oauth/state_mismatch', 'too_many_requests']).toContain(error);
      spent = error === 'too_many_requests';
    }
    expect(spent).toBe(true);

    const start = await browser.get(`/auth/login/oauth/google?session_id=${sessionId}`).redirects(0);
    const location = locationOf(start);
    expect(errorOf(location)).toBe('too_many_requests');
    expect(location).toContain(`session_id=${sessionId}`);
    expect(start.headers['content-type'] ?? '').not.toContain('json');
    expect(errorOf(locationOf(await t.agent().get(callback).redirects(0)))).toBe('too_many_requests');
  });
});
