import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockoutPolicy, recordFailure } from '../../src/login/lockout.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount } from './fixtures.ts';
import { errorType, setCookies } from './journey.ts';

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
const startCarrying = (email: string, cookie = '') => t.agent().post('/auth/login/start').set('Cookie', cookie).send({ email });

async function signIn(email: string): Promise<Response> {
  const started = await startCarrying(email);
  const login = pair(setCookies(started).get('__Host-nyckel_login'));
  return t.agent().post('/auth/login/verify-password').set('Cookie', login).send({ session_id: started.body.session_id, email, password });
}

describe('the known-browser cookie behind HTTPS', () => {
  it('is __Host-nyckel_known (Secure, Path=/, no Domain), and only that name counts', async () => {
    expect(t.ctx.config.secureCookies).toBe(true);
    const account = await createAccount(t.ctx.db, { password });
    const done = await signIn(account.email);
    expect(done.body.state).toBe('Done');
    const line = setCookies(done).get('__Host-nyckel_known');
    expect(line).toMatch(/; Secure/);
    expect(line).toMatch(/Path=\/;/);
    expect(line).not.toMatch(/Domain=/i);
    const value = pair(line).slice('__Host-nyckel_known='.length);

    const meta = { accountId: account.id, method: 'password', reason: 'invalid_credentials', ip: null, userAgent: null };
    for (let i = 0; i < lockoutPolicy.maxFailures; i += 1) await recordFailure(t.ctx, account.email, meta).catch(() => {});
    expect(errorType(await startCarrying(account.email))).toBe('account_locked');
    expect((await startCarrying(account.email, `__Host-nyckel_known=${value}`)).status).toBe(200);
    // The unprefixed name, which a sibling subdomain could set, is not read.
    expect(errorType(await startCarrying(account.email, `nyckel_known=${value}`))).toBe('account_locked');
  });
});
