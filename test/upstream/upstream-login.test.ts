import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { doneTarget } from '../../portal/src/login/done-target.ts';
import { lockedSeconds, recordFailure } from '../../src/login/lockout.ts';
import { upstreamClient } from '../../src/upstream/upstream-client.ts';
import { createAccount, uniqueEmail } from '../login/fixtures.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { errorType, setCookies, signInWithPassword, start } from '../login/journey.ts';
import { arrive, atProvider, auditActions, errorOf, googleVerified, locationOf, oidcCredentials, roundTrip, startLogin, toProvider } from './journey.ts';
import { startUpstream, type TestUpstream } from './upstream-provider.ts';
import { codeAt, createTotpAccount, nextStep, verifyMfa, wrongCode } from '../totp/helpers.ts';

/**
 * Signing in with Google and Microsoft, through real upstream OpenID providers on loopback
 * (oidc-provider issuing Google- and Microsoft-shaped ID tokens) and the real app over HTTP.
 */
let t: TestApp;
let google: TestUpstream;
let microsoft: TestUpstream;

beforeAll(async () => {
  const nyckelOrigin = 'http://127.0.0.1:3000';
  google = await startUpstream({ kind: 'google', nyckelOrigin });
  microsoft = await startUpstream({ kind: 'microsoft', nyckelOrigin });
  t = await startTestApp({ env: { ...google.env, ...microsoft.env, MICROSOFT_ALLOWED_TENANTS: microsoft.tenantId! } });
});
afterAll(async () => {
  await t?.close();
  await google?.close();
  await microsoft?.close();
});

let subjects = 0;
const newSubject = () => `sub-${(subjects += 1)}-${Date.now()}`;
const host = (upstream: TestUpstream) => new URL(upstream.origin).host;

/** An account with a password, in CredentialsRequired in a new browser. */
async function atCredentials(options: { totp?: number } = {}) {
  const account = await createAccount(t.ctx.db, { password: 'Correct-Horse-42!', ...options });
  const browser = t.agent();
  const sessionId = await startLogin(browser, account.email);
  return { account, browser, sessionId };
}

const loginPath = (provider: string, sessionId: string) => `/auth/login/oauth/${provider}?session_id=${encodeURIComponent(sessionId)}`;

describe('GET /auth/providers', () => {
  it('lists the configured providers with the host their credentials carry', async () => {
    const res = await t.agent().get('/auth/providers');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ providers: [{ id: 'google', host: host(google) }, { id: 'microsoft', host: host(microsoft) }] });
  });
});

describe('first sign-in with an upstream identity', () => {
  it('links when Google asserts email_verified: true for the session email in its Workspace domain (hd), and signs in', async () => {
    const { account, browser, sessionId } = await atCredentials();
    const sub = newSubject();
    const res = await roundTrip(browser, google, loginPath('google', sessionId), { account: { sub, ...googleVerified(account.email.toUpperCase()) } });
    expect(locationOf(res)).toBe('/login/select-tenant');
    expect(setCookies(res).get('nyckel_session')).toMatch(/HttpOnly/);
    expect(await oidcCredentials(t, account.id)).toEqual([
      { id: expect.any(String), provider: host(google), subject: sub, data: { issuer: google.issuer, upstream: 'google' } },
    ]);
    const audit = await auditActions(t, account.id);
    expect(audit.find((e) => e.action === 'upstream.linked')?.details).toMatchObject({ provider: 'google', via: 'login-verified-email' });
    expect(audit.find((e) => e.action === 'login.succeeded')?.details).toMatchObject({ method: 'oidc', amr: ['fed'] });
    expect((await browser.get('/oauth2/userinfo')).body.email).toBe(account.email);
  });

  it.each([
    ['an unverified email', (email: string) => ({ email, email_verified: false })],
    ['email_verified as the string "true"', (email: string) => ({ email, email_verified: 'true' })],
    ['a verified but different email', () => ({ email: uniqueEmail('other'), email_verified: true })],
    ['a verified address Google does not answer for (no hd, not Gmail)', (email: string) => ({ email, email_verified: true })],
    ['no email at all', () => ({})],
  ])('does not link with %s: oauth/not_linked, and the login session stays usable', async (_name, claims) => {
    const { account, browser, sessionId } = await atCredentials();
    const res = await roundTrip(browser, google, loginPath('google', sessionId), { account: { sub: newSubject(), ...claims(account.email) } });
    const location = locationOf(res);
    expect(errorOf(location)).toBe('oauth/not_linked');
    expect(new URL(location, 'http://x').searchParams.get('session_id')).toBe(sessionId);
    expect(await oidcCredentials(t, account.id)).toEqual([]);
    expect(setCookies(res).has('nyckel_session')).toBe(false);
    const ping = await browser.get(`/auth/login/ping?session_id=${encodeURIComponent(sessionId)}`);
    expect(ping.body.session.state).toBe('CredentialsRequired');
  });

  // Entra's `email` is whatever the tenant's admins set ("nOAuth"): not even email_verified: true links.
  it.each([
    ['no email_verified claim', {}],
    ['email_verified: true', { email_verified: true }],
  ])('never links a Microsoft identity on its own, even with the session email (%s)', async (_label, verified) => {
    const { account, browser, sessionId } = await atCredentials();
    const res = await roundTrip(browser, microsoft, loginPath('microsoft', sessionId), { account: { sub: newSubject(), email: account.email, ...verified } });
    expect(errorOf(locationOf(res))).toBe('oauth/not_linked');
    expect(await oidcCredentials(t, account.id)).toEqual([]);
  });
});

describe('a linked identity', () => {
  it('signs in again after the upstream email changed, matched by issuer and subject', async () => {
    const { account, browser, sessionId } = await atCredentials();
    const sub = newSubject();
    await roundTrip(browser, google, loginPath('google', sessionId), { account: { sub, ...googleVerified(account.email) } });

    const again = t.agent();
    const second = await startLogin(again, account.email);
    const res = await roundTrip(again, google, loginPath('google', second), { account: { sub, email: 'renamed@elsewhere.example', email_verified: false } });
    expect(locationOf(res)).toBe('/login/select-tenant');
    expect(await oidcCredentials(t, account.id)).toHaveLength(1);
  });

  it('signs in from a browser new to the address while wrong passwords hold it locked; the password stays locked', async () => {
    const { account, browser, sessionId } = await atCredentials();
    const sub = newSubject();
    await roundTrip(browser, google, loginPath('google', sessionId), { account: { sub, ...googleVerified(account.email) } });
    const meta = { accountId: account.id, method: 'password', reason: 'invalid_credentials', ip: null, userAgent: null };
    for (let i = 0; i < 10; i += 1) await recordFailure(t.ctx, account.email, meta).catch(() => {});
    expect(await lockedSeconds(t.ctx, { email: account.email })).toBeGreaterThan(0);

    const stranger = t.agent();
    const second = await startLogin(stranger, account.email);
    const res = await roundTrip(stranger, google, loginPath('google', second), { account: { sub, ...googleVerified(account.email) } });
    expect(locationOf(res)).toBe('/login/select-tenant');
    expect(setCookies(res).get('nyckel_session')).toMatch(/HttpOnly/);
    expect(await lockedSeconds(t.ctx, { email: account.email })).toBeGreaterThan(0);
    // The console's mirror of the lock stays too: the lock still holds for the password.
    expect((await t.ctx.db('accounts').where({ id: account.id }).first('locked_until')).locked_until).not.toBeNull();
    const refused = await signInWithPassword(t.agent(), account.email, 'Correct-Horse-42!');
    expect([refused.status, errorType(refused)]).toEqual([423, 'account_locked']);
  });

  it('takes the authenticator code after Google while the address is locked; wrong codes count in a lane of their own, 10 of them, then the lock holds', async () => {
    const account = await createTotpAccount(t.ctx);
    const sub = newSubject();
    const googleAccount = { account: { sub, ...googleVerified(account.email) } };
    /** A browser new to the address, through Google, at MfaRequired. */
    const throughGoogle = async () => {
      const browser = t.agent();
      const sessionId = await startLogin(browser, account.email);
      expect(locationOf(await roundTrip(browser, google, loginPath('google', sessionId), googleAccount))).toBe(`/login?session_id=${encodeURIComponent(sessionId)}`);
      return { browser, sessionId };
    };
    await throughGoogle(); // links the identity
    const meta = { accountId: account.id, method: 'password', reason: 'invalid_credentials', ip: null, userAgent: null };
    for (let i = 0; i < 10; i += 1) await recordFailure(t.ctx, account.email, meta).catch(() => {});
    expect(await lockedSeconds(t.ctx, { email: account.email })).toBeGreaterThan(0);

    const owner = await throughGoogle();
    const done = await verifyMfa(owner.browser, owner.sessionId, await codeAt(t.ctx, account.secrets[0]!));
    expect([done.status, done.body.state]).toEqual([200, 'Done']);
    expect(await lockedSeconds(t.ctx, { email: account.email })).toBeGreaterThan(0);
    expect((await t.ctx.db('accounts').where({ id: account.id }).first('locked_until')).locked_until).not.toBeNull();
    const succeeded = (await auditActions(t, account.id)).filter((e) => e.action === 'login.succeeded');
    expect(succeeded.at(-1)?.details).toMatchObject({ method: 'oidc', amr: ['fed', 'otp', 'mfa'], proven_first_factor: true });

    // Someone holding the Google account but not the authenticator: 10 wrong codes in the lane.
    nextStep(t.ctx);
    const wrong = await wrongCode(t.ctx, account.secrets[0]!);
    for (const tries of [4, 4, 2]) {
      const guesser = await throughGoogle();
      for (let i = 0; i < tries; i += 1) expect(errorType(await verifyMfa(guesser.browser, guesser.sessionId, wrong))).toBe('mfa/invalid');
    }
    const failed = (await auditActions(t, account.id)).filter((e) => e.action === 'login.failed' && e.details.method === 'totp');
    expect(failed.map((e) => e.details.proven_first_factor)).toEqual(Array(10).fill(true));
    // The lane has lost its standing: the next code, even the right one, meets the address's lock.
    const late = await throughGoogle();
    const refused = await verifyMfa(late.browser, late.sessionId, await codeAt(t.ctx, account.secrets[0]!));
    expect([refused.status, errorType(refused)]).toEqual([423, 'account_locked']);
  });

  it('still needs the TOTP code when the account has one: back to /login at MfaRequired', async () => {
    const { account, browser, sessionId } = await atCredentials({ totp: 1 });
    const res = await roundTrip(browser, google, loginPath('google', sessionId), { account: { sub: newSubject(), ...googleVerified(account.email) } });
    const location = locationOf(res);
    expect(location).toBe(`/login?session_id=${encodeURIComponent(sessionId)}`);
    expect(setCookies(res).has('nyckel_session')).toBe(false);
    const ping = await browser.get(`/auth/login/ping?session_id=${encodeURIComponent(sessionId)}`);
    expect(ping.body.session.state).toBe('MfaRequired');
  });

  it('of another account is refused for this one: oauth/identity_in_use', async () => {
    const first = await atCredentials();
    const sub = newSubject();
    await roundTrip(first.browser, google, loginPath('google', first.sessionId), { account: { sub, ...googleVerified(first.account.email) } });
    const other = await atCredentials();
    const res = await roundTrip(other.browser, google, loginPath('google', other.sessionId), { account: { sub, ...googleVerified(other.account.email) } });
    expect(errorOf(locationOf(res))).toBe('oauth/identity_in_use');
    expect(await oidcCredentials(t, other.account.id)).toEqual([]);
  });
});

describe('refused callbacks link nothing', () => {
  /** A trip up to the callback URL that would link (verified, matching email). */
  async function pendingCallback(upstream: TestUpstream = google) {
    const { account, browser, sessionId } = await atCredentials();
    const authorization = await toProvider(browser, loginPath(upstream.kind, sessionId));
    return { account, browser, sessionId, authorization, linking: { account: { sub: newSubject(), ...googleVerified(account.email) } } };
  }

  it('a replayed callback: oauth/state_mismatch', async () => {
    const { account, browser, authorization, linking } = await pendingCallback();
    const callback = await atProvider(google, authorization, linking);
    expect(locationOf(await arrive(browser, callback))).toBe('/login/select-tenant');
    const replay = await arrive(browser, callback);
    expect(errorOf(locationOf(replay))).toBe('oauth/state_mismatch');
    expect(await oidcCredentials(t, account.id)).toHaveLength(1);
  });

  it('a wrong state: oauth/state_mismatch', async () => {
    const { account, browser, authorization, linking } = await pendingCallback();
    const callback = await atProvider(google, authorization, linking);
    callback.searchParams.set('state', 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    expect(errorOf(locationOf(await arrive(browser, callback)))).toBe('oauth/state_mismatch');
    expect(await oidcCredentials(t, account.id)).toEqual([]);
  });

  it('a callback opened in another browser (no binding cookie): oauth/state_mismatch, and it is spent', async () => {
    const { account, browser, authorization, linking } = await pendingCallback();
    const callback = await atProvider(google, authorization, linking);
    expect(errorOf(locationOf(await arrive(t.agent(), callback)))).toBe('oauth/state_mismatch');
    expect(errorOf(locationOf(await arrive(browser, callback)))).toBe('oauth/state_mismatch');
    expect(await oidcCredentials(t, account.id)).toEqual([]);
  });

  it('a wrong nonce in the ID token: oauth/provider_error', async () => {
    const { account, browser, authorization, linking } = await pendingCallback();
    const tampered = new URL(authorization);
    tampered.searchParams.set('nonce', 'not-the-nonce-nyckel-sent');
    const callback = await atProvider(google, tampered.href, linking);
    expect(errorOf(locationOf(await arrive(browser, callback)))).toBe('oauth/provider_error');
    expect(await oidcCredentials(t, account.id)).toEqual([]);
  });

  it('issuer mix-up (a code from Google presented on the Microsoft callback): oauth/state_mismatch', async () => {
    const { account, browser, authorization, linking } = await pendingCallback(google);
    const callback = await atProvider(google, authorization, linking);
    const mixed = new URL(callback);
    mixed.pathname = '/auth/oauth/callback/microsoft';
    expect(errorOf(locationOf(await arrive(browser, mixed)))).toBe('oauth/state_mismatch');
    expect(await oidcCredentials(t, account.id)).toEqual([]);
  });

  it('the person cancels at the provider: oauth/access_denied', async () => {
    const { account, browser, sessionId, authorization } = await pendingCallback();
    const callback = await atProvider(google, authorization, { error: 'access_denied', description: 'the person cancelled' });
    const location = locationOf(await arrive(browser, callback));
    expect(errorOf(location)).toBe('oauth/access_denied');
    expect(location).toContain(`session_id=${encodeURIComponent(sessionId)}`);
    expect(await oidcCredentials(t, account.id)).toEqual([]);
  });

  it('the provider fails: oauth/provider_error', async () => {
    const { account, browser, authorization } = await pendingCallback(microsoft);
    const callback = await atProvider(microsoft, authorization, { error: 'temporarily_unavailable' });
    expect(errorOf(locationOf(await arrive(browser, callback)))).toBe('oauth/provider_error');
    expect(await oidcCredentials(t, account.id)).toEqual([]);
  });

  it('the token endpoint does not answer in time: oauth/provider_unavailable, and the login session stays', async () => {
    const { account, browser, sessionId, authorization, linking } = await pendingCallback();
    const callback = await atProvider(google, authorization, linking);
    // One second instead of upstreamTimeoutSeconds, so the test does not wait ten.
    const configuration = await upstreamClient(t.ctx, 'google');
    const timeout = configuration.timeout;
    configuration.timeout = 1;
    google.breakNextToken({ delayMs: 3_000 });
    try {
      const location = locationOf(await arrive(browser, callback));
      expect(errorOf(location)).toBe('oauth/provider_unavailable');
      expect(location).toContain(`session_id=${encodeURIComponent(sessionId)}`);
    } finally {
      configuration.timeout = timeout;
    }
    expect(await oidcCredentials(t, account.id)).toEqual([]);
  });

  it('the token endpoint drops the connection: oauth/provider_unavailable', async () => {
    const { account, browser, authorization, linking } = await pendingCallback();
    const callback = await atProvider(google, authorization, linking);
    google.breakNextToken('reset');
    expect(errorOf(locationOf(await arrive(browser, callback)))).toBe('oauth/provider_unavailable');
    expect(await oidcCredentials(t, account.id)).toEqual([]);
  });
});

describe('return_to (the profile’s "sign in again": /login?email=…&return_to=/profile)', () => {
  const origin = () => t.ctx.config.publicUrl;

  /** Where the portal goes after a password sign-in from a /login page with this query. */
  async function afterPassword(email: string, query: string): Promise<string> {
    const browser = t.agent();
    const started = await start(browser, email, query);
    const done = await browser.post('/auth/login/verify-password').send({ session_id: started.body.session_id, email, password: 'Correct-Horse-42!' });
    expect(done.body.state).toBe('Done');
    return doneTarget(done.body, query, origin());
  }

  it.each([
    ['a local path', '?return_to=%2Fprofile', '/profile'],
    ['another host', '?return_to=%2F%2Fevil.example', '/login/select-tenant'],
    ['a sign-in for an OAuth request', '?interaction=abc&return_to=%2Fprofile', '/auth/interaction/abc/finish'],
  ])('is followed at Done after Google as after a password: %s', async (_name, query, expected) => {
    const account = await createAccount(t.ctx.db, { password: 'Correct-Horse-42!' });
    const browser = t.agent();
    const sessionId = await startLogin(browser, account.email, 'CredentialsRequired', query);
    const res = await roundTrip(browser, google, loginPath('google', sessionId), { account: { sub: newSubject(), ...googleVerified(account.email) } });
    expect(locationOf(res)).toBe(expected);
    expect(await afterPassword(account.email, query)).toBe(expected);
  });

  it('is kept on the way to the authenticator code after Google, and followed at its Done', async () => {
    const account = await createTotpAccount(t.ctx);
    const browser = t.agent();
    const sessionId = await startLogin(browser, account.email, 'CredentialsRequired', '?return_to=%2Fprofile');
    const res = await roundTrip(browser, google, loginPath('google', sessionId), { account: { sub: newSubject(), ...googleVerified(account.email) } });
    const location = locationOf(res);
    expect(location).toBe(`/login?return_to=%2Fprofile&session_id=${encodeURIComponent(sessionId)}`);
    // The portal shows that page's MFA step and, at Done, goes where the page's query says.
    const done = await verifyMfa(browser, sessionId, await codeAt(t.ctx, account.secrets[0]!));
    expect(done.body.state).toBe('Done');
    expect(doneTarget(done.body, new URL(location, origin()).search, origin())).toBe('/profile');
  });
});

describe('starting a sign-in', () => {
  it('needs this browser’s login session in CredentialsRequired', async () => {
    const { sessionId } = await atCredentials();
    const stranger = await t.agent().get(loginPath('google', sessionId)).redirects(0);
    expect(locationOf(stranger)).toBe('/login?error=login_session_missing');
    const fresh = t.agent();
    const otpSession = await startLogin(fresh, uniqueEmail('nobody'), 'OTPRequired');
    expect(errorOf(locationOf(await fresh.get(loginPath('google', otpSession)).redirects(0)))).toBe('invalid_login_session_state');
  });

  it('answers oauth/provider_not_configured for a provider Nyckel does not have', async () => {
    const { browser, sessionId } = await atCredentials();
    expect(errorOf(locationOf(await browser.get(loginPath('facebook', sessionId)).redirects(0)))).toBe('oauth/provider_not_configured');
  });

  it('sends PKCE (S256), state, nonce and the registered redirect URI, and binds the browser with a cookie', async () => {
    const { browser, sessionId, account } = await atCredentials();
    const res = await browser.get(loginPath('google', sessionId)).redirects(0);
    const url = new URL(locationOf(res));
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: google.clientId,
      response_type: 'code',
      scope: 'openid email profile',
      redirect_uri: 'http://127.0.0.1:3000/auth/oauth/callback/google',
      code_challenge_method: 'S256',
      login_hint: account.email,
    });
    for (const name of ['state', 'nonce', 'code_challenge']) expect(url.searchParams.get(name)).toMatch(/^[\w-]{43}$/);
    const cookie = setCookies(res).get('nyckel_upstream') ?? '';
    for (const attribute of [/Path=\/auth(;|$)/, /HttpOnly/, /SameSite=Lax/, /Max-Age=600/]) expect(cookie).toMatch(attribute);
  });
});
