import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount } from '../login/fixtures.ts';
import { setCookies } from '../login/journey.ts';
import { arrive, atProvider, errorOf, googleVerified, locationOf, startLogin, toProvider } from './journey.ts';
import { startUpstream, type TestUpstream } from './upstream-provider.ts';

/**
 * Google sign-in in one tab while another tab of the same browser starts its own sign-in: the
 * callback finds its sign-in among the browser's (the login cookie holds several), and finishing
 * it leaves the other tab's.
 */
let t: TestApp;
let google: TestUpstream;
beforeAll(async () => {
  google = await startUpstream({ kind: 'google', nyckelOrigin: 'http://127.0.0.1:3000' });
  t = await startTestApp({ env: google.env });
});
afterAll(async () => {
  await t?.close();
  await google?.close();
});

const password = 'Correct-Horse-42!';
const loginPath = (sessionId: string) => `/auth/login/oauth/google?session_id=${encodeURIComponent(sessionId)}`;

describe('a Google sign-in beside another tab’s sign-in', () => {
  it('finishes after the other tab started, and the other tab then finishes with its password', async () => {
    const viaGoogle = await createAccount(t.ctx.db, { password });
    const viaPassword = await createAccount(t.ctx.db, { password });
    const browser = t.agent();
    const tabA = await startLogin(browser, viaGoogle.email, 'CredentialsRequired', '?interaction=tab-a');
    const authorization = await toProvider(browser, loginPath(tabA));
    const tabB = await startLogin(browser, viaPassword.email, 'CredentialsRequired', '?interaction=tab-b');

    const callback = await atProvider(google, authorization, { account: { sub: `two-tabs-${Date.now()}`, ...googleVerified(viaGoogle.email) } });
    const back = await arrive(browser, callback);
    const location = locationOf(back);
    expect(errorOf(location)).toBeNull();
    expect(location).toBe('/auth/interaction/tab-a/finish');
    expect(setCookies(back).get('nyckel_login')).not.toMatch(/Expires=Thu, 01 Jan 1970/);

    const done = await browser.post('/auth/login/verify-password').send({ session_id: tabB, email: viaPassword.email, password });
    expect([done.status, done.body.state]).toEqual([200, 'Done']);
    expect(setCookies(done).get('nyckel_login')).toMatch(/Expires=Thu, 01 Jan 1970/);
  });
});
