import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount } from './fixtures.ts';
import { setCookies } from './journey.ts';

/**
 * An HTTPS issuer, as in production: Secure cookies. The test talks plain HTTP to the app, so it
 * carries the cookies by hand (a cookie jar keeps Secure ones for HTTPS).
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { ISSUER: 'https://id.example.test/oauth2' } });
});
afterAll(async () => {
  await t?.close();
});

const password = 'Correct-Horse-9';
/** `name=value` of a Set-Cookie line. */
const pair = (line: string | undefined) => line!.slice(0, line!.indexOf(';'));

describe('the Nyckel session cookie behind HTTPS', () => {
  it('is __Host-nyckel_session (Secure, Path=/, no Domain), and only that name signs a request in', async () => {
    expect(t.ctx.config.secureCookies).toBe(true);
    const account = await createAccount(t.ctx.db, { password });
    const started = await t.agent().post('/auth/login/start').send({ email: account.email });
    const login = pair(setCookies(started).get('__Host-nyckel_login'));
    const done = await t
      .agent()
      .post('/auth/login/verify-password')
      .set('Cookie', login)
      .send({ session_id: started.body.session_id, email: account.email, password });
    expect(done.body.state).toBe('Done');
    expect(setCookies(done).has('nyckel_session')).toBe(false);
    const line = setCookies(done).get('__Host-nyckel_session');
    expect(line).toMatch(/; Secure/);
    expect(line).toMatch(/Path=\/;/);
    expect(line).not.toMatch(/Domain=/i);
    const value = pair(line).slice('__Host-nyckel_session='.length);

    const userinfo = (cookie: string) => t.agent().get('/oauth2/userinfo').set('Cookie', cookie);
    const signedIn = await userinfo(`__Host-nyckel_session=${value}`);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.email).toBe(account.email);
    // The unprefixed name, which a sibling subdomain could set, is not read.
    expect((await userinfo(`nyckel_session=${value}`)).status).toBe(401);

    // Signing out clears the prefixed cookie.
    const out = await t.agent().post('/api/accounts/sessions/sign-out').set('Cookie', `__Host-nyckel_session=${value}`).set('Origin', 'https://id.example.test').send({});
    expect(out.status).toBe(200);
    expect(setCookies(out).get('__Host-nyckel_session')).toMatch(/Expires=Thu, 01 Jan 1970/);
  });
});
