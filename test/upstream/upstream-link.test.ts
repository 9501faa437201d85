import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResetLink } from '../../src/login/reset.service.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount } from '../login/fixtures.ts';
import { codeFrom, signInWithPassword, type Browser } from '../login/journey.ts';
import { arrive, atProvider, auditActions, errorOf, locationOf, oidcCredentials, roundTrip, startLogin, toProvider } from './journey.ts';
import { startUpstream, type TestUpstream } from './upstream-provider.ts';

/**
 * Linking Google and Microsoft where the person has already proved who they are: on the
 * ask-to-create-credential step after the email code, and from /profile after a recent sign-in.
 */
let t: TestApp;
let google: TestUpstream;
let microsoft: TestUpstream;

beforeAll(async () => {
  const nyckelOrigin = 'http://127.0.0.1:3000';
  google = await startUpstream({ kind: 'google', nyckelOrigin });
  microsoft = await startUpstream({ kind: 'microsoft', nyckelOrigin });
  t = await startTestApp({ env: { ...google.env, ...microsoft.env } });
});
afterAll(async () => {
  await t?.close();
  await google?.close();
  await microsoft?.close();
});

let subjects = 0;
const newSubject = () => `link-${(subjects += 1)}-${Date.now()}`;
const PASSWORD = 'Correct-Horse-42!';

/** An account without credentials, signed in by email code, at AskedCreateCredential. */
async function atAskCreateCredential() {
  const account = await createAccount(t.ctx.db);
  const browser = t.agent();
  const sessionId = await startLogin(browser, account.email, 'OTPRequired');
  const otp = codeFrom(await t.mail.waitFor(account.email));
  const res = await browser.post('/auth/login/verify-otp').send({ session_id: sessionId, email: account.email, otp });
  expect(res.body.state).toBe('AskedCreateCredential');
  return { account, browser, sessionId };
}

/** An account with a password, signed in now in a new browser. */
async function signedIn(): Promise<{ account: { id: string; email: string }; browser: Browser }> {
  const account = await createAccount(t.ctx.db, { password: PASSWORD });
  const browser = t.agent();
  expect((await signInWithPassword(browser, account.email, PASSWORD)).body.state).toBe('Done');
  return { account, browser };
}

const linkAfterCode = (provider: string, sessionId: string) => `/auth/login/link/oauth/${provider}?session_id=${encodeURIComponent(sessionId)}`;
const linkFromProfile = (provider: string, from = '/profile') => `/auth/link/oauth/${provider}?from=${encodeURIComponent(from)}`;

describe('linking on the ask-to-create-credential step', () => {
  it('links whatever email the upstream has (the code proved the account) and finishes the sign-in', async () => {
    const { account, browser } = await atAskCreateCredential();
    const sessionId = (await browser.get('/auth/login/ping')).body.session.session_id as string;
    const sub = newSubject();
    const res = await roundTrip(browser, google, linkAfterCode('google', sessionId), { account: { sub, email: 'private@gmail.example', email_verified: false } });
    expect(locationOf(res)).toBe('/login/select-tenant');
    expect(await oidcCredentials(t, account.id)).toMatchObject([{ subject: sub, data: { issuer: google.issuer } }]);
    const audit = await auditActions(t, account.id);
    expect(audit.find((e) => e.action === 'upstream.linked')?.details).toMatchObject({ provider: 'google', via: 'login-after-code' });

    // Next time the account is at CredentialsRequired and signs in with Google alone.
    const next = t.agent();
    const second = await startLogin(next, account.email);
    const again = await roundTrip(next, google, `/auth/login/oauth/google?session_id=${encodeURIComponent(second)}`, { account: { sub } });
    expect(locationOf(again)).toBe('/login/select-tenant');
  });

  it('refuses an identity already linked to another account, and the step stays', async () => {
    const sub = newSubject();
    const first = await atAskCreateCredential();
    await roundTrip(first.browser, microsoft, linkAfterCode('microsoft', first.sessionId), { account: { sub } });
    const { account, browser, sessionId } = await atAskCreateCredential();
    const res = await roundTrip(browser, microsoft, linkAfterCode('microsoft', sessionId), { account: { sub } });
    expect(errorOf(locationOf(res))).toBe('oauth/identity_in_use');
    expect(await oidcCredentials(t, account.id)).toEqual([]);
    expect((await browser.get(`/auth/login/ping?session_id=${encodeURIComponent(sessionId)}`)).body.session.state).toBe('AskedCreateCredential');
  });

  it('links nothing for a sign-in overtaken by a reset: the login session ends', async () => {
    const { account, browser, sessionId } = await atAskCreateCredential();
    const { link } = await createResetLink(t.ctx, account.id);
    const confirmed = await t.agent().post('/auth/reset/confirm').send({ token: link.split('/').pop(), password: 'Owners-Password-1' });
    expect(confirmed.status).toBe(200);
    const res = await roundTrip(browser, google, linkAfterCode('google', sessionId), { account: { sub: newSubject() } });
    expect(errorOf(locationOf(res))).toBe('login_session_missing');
    expect(await oidcCredentials(t, account.id)).toEqual([]);
    expect((await browser.get(`/auth/login/ping?session_id=${encodeURIComponent(sessionId)}`)).body.session).toBeNull();
  });

  it('is offered only on that step', async () => {
    const account = await createAccount(t.ctx.db, { password: PASSWORD });
    const browser = t.agent();
    const sessionId = await startLogin(browser, account.email);
    expect(errorOf(locationOf(await browser.get(linkAfterCode('google', sessionId)).redirects(0)))).toBe('invalid_login_session_state');
  });
});

describe('linking from the profile', () => {
  it('links Microsoft with the tenant recorded, and returns to /profile', async () => {
    const { account, browser } = await signedIn();
    const sub = newSubject();
    const res = await roundTrip(browser, microsoft, linkFromProfile('microsoft'), { account: { sub, email: 'someone@tenant.example' } });
    expect(locationOf(res)).toBe('/profile?linked=microsoft');
    expect(await oidcCredentials(t, account.id)).toMatchObject([
      { provider: new URL(microsoft.origin).host, subject: sub, data: { issuer: microsoft.issuer, upstream: 'microsoft', tid: microsoft.tenantId } },
    ]);
    const info = await browser.get('/oauth2/userinfo');
    expect(info.body.available_credentials).toContainEqual({ id: expect.any(String), type: 'oidc', provider: new URL(microsoft.origin).host });
  });

  it('needs a recent sign-in: reauthentication_required, nothing linked', async () => {
    const { account, browser } = await signedIn();
    t.ctx.advance(6 * 60 * 1000);
    const res = await browser.get(linkFromProfile('google')).redirects(0);
    expect(locationOf(res)).toBe('/profile?error=reauthentication_required');
    expect(await oidcCredentials(t, account.id)).toEqual([]);
  });

  it('sends a browser without a session to /login', async () => {
    expect(locationOf(await t.agent().get(linkFromProfile('google')).redirects(0))).toBe('/login');
  });

  it.each(['//evil.example', 'https://evil.example', '/\\evil', '/\\/evil.example', '/..//evil.example', '/%2e%2e//evil.example', 'javascript:alert(1)'])(
    'returns to /profile, never to from=%s',
    async (from) => {
      const { browser } = await signedIn();
      const res = await roundTrip(browser, google, linkFromProfile('google', from), { account: { sub: newSubject() } });
      expect(locationOf(res)).toBe('/profile?linked=google');
    },
  );

  it('returns to a local from, with the error when the person cancels', async () => {
    const { account, browser } = await signedIn();
    const authorization = await toProvider(browser, linkFromProfile('google', '/profile?tab=methods'));
    const res = await arrive(browser, await atProvider(google, authorization, { error: 'access_denied' }));
    expect(locationOf(res)).toBe('/profile?tab=methods&error=oauth%2Faccess_denied');
    expect(await oidcCredentials(t, account.id)).toEqual([]);
  });
});

describe('unlinking from the profile', () => {
  it('removes a linked identity when another way to sign in remains', async () => {
    const { account, browser } = await signedIn();
    await roundTrip(browser, google, linkFromProfile('google'), { account: { sub: newSubject() } });
    const [credential] = await oidcCredentials(t, account.id);
    const res = await browser.delete(`/oauth2/userinfo/credentials/${credential!.id}`);
    expect(res.status).toBe(204);
    expect(await oidcCredentials(t, account.id)).toEqual([]);
  });

  it('refuses to remove the last way to sign in of a User (credential/last-sign-in-method)', async () => {
    const { account, browser } = await atAskCreateCredential();
    const sessionId = (await browser.get('/auth/login/ping')).body.session.session_id as string;
    await roundTrip(browser, google, linkAfterCode('google', sessionId), { account: { sub: newSubject() } });
    const [credential] = await oidcCredentials(t, account.id);
    const res = await browser.delete(`/oauth2/userinfo/credentials/${credential!.id}`);
    expect(res.status).toBe(409);
    expect(res.body.detail[0].type).toBe('credential/last-sign-in-method');
    expect(await oidcCredentials(t, account.id)).toHaveLength(1);
  });
});
