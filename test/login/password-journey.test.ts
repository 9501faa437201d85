import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPasswordHash } from '../../src/credentials/credentials.repository.ts';
import { hashPassword } from '../../src/credentials/password/hashing.ts';
import { passwordVerifier } from '../../src/credentials/password/password.verifier.ts';
import { loadAccountFacts } from '../../src/login/login-answer.ts';
import { reserveAttempt } from '../../src/login/lockout.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount, passwordHashOf } from './fixtures.ts';
import { errorType, setCookies, signInWithPassword, start } from './journey.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const password = 'Correct-Horse-9';

describe('sign-in with a password', () => {
  it('goes Start → CredentialsRequired → Done and opens a portal session', async () => {
    const account = await createAccount(t.ctx.db, { password });
    const browser = t.agent();
    const started = await start(browser, `  ${account.email.toUpperCase()} `, '?client_id=app&lang=sv');
    expect(started.status).toBe(200);
    expect(started.body).toEqual({
      state: 'CredentialsRequired',
      session_id: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      email: account.email,
      is_user: true,
      is_stakeholder: false,
      available_credentials: [{ id: expect.any(String), type: 'password', provider: null }],
      allow_totp_remember: false,
    });
    const loginCookie = setCookies(started).get('nyckel_login');
    expect(loginCookie).toMatch(/HttpOnly/);
    expect(loginCookie).toMatch(/SameSite=Lax/);
    expect(loginCookie).toMatch(/Path=\/auth/);
    expect(loginCookie).not.toMatch(/Secure/);

    const done = await browser
      .post('/auth/login/verify-password')
      .send({ session_id: started.body.session_id, email: account.email, password });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ state: 'Done', email: account.email, redirect_to: '/login/select-tenant' });
    const sessionCookie = setCookies(done).get('nyckel_session');
    expect(sessionCookie).toMatch(/HttpOnly/);
    expect(sessionCookie).toMatch(/Path=\/;/);
    expect(sessionCookie).not.toMatch(/Max-Age/); // no "remember me": a browser-session cookie
    expect(setCookies(done).get('nyckel_login')).toMatch(/Expires=Thu, 01 Jan 1970/);

    expect((await browser.get('/auth/login/ping')).body).toEqual({ session: null, email: account.email });

    const row = await t.ctx.db('accounts').where({ id: account.id }).first('last_login_at');
    expect(row.last_login_at).not.toBeNull();
    const audit = await t.ctx.db('audit_events').where({ target_account_id: account.id, action: 'login.succeeded' }).first();
    expect(audit.details).toMatchObject({ method: 'password', amr: ['pwd'] });
    expect(JSON.stringify(audit)).not.toContain(password);
  });

  it('stores the portal session with amr pwd, indexed by account; remember-me makes the cookie persistent', async () => {
    const account = await createAccount(t.ctx.db, { password });
    const browser = t.agent();
    const done = await signInWithPassword(browser, account.email, password, { remember: true });
    expect(setCookies(done).get('nyckel_session')).toMatch(/Max-Age=43200/);
    const { listPortalSessions } = await import('../../src/session/portal-session.ts');
    const sessions = await listPortalSessions(t.ctx, account.id);
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ account_id: account.id, email: account.email, amr: ['pwd'] });
    expect(sessions[0]!.auth_time).toBeCloseTo(t.ctx.now().getTime() / 1000, -1);
  });

  it('rotates the portal session id on every sign-in and ends the previous one', async () => {
    const account = await createAccount(t.ctx.db, { password });
    const browser = t.agent();
    const first = setCookies(await signInWithPassword(browser, account.email, password)).get('nyckel_session');
    const second = setCookies(await signInWithPassword(browser, account.email, password)).get('nyckel_session');
    expect(first && second && first !== second).toBe(true);
    const { listPortalSessions } = await import('../../src/session/portal-session.ts');
    expect(await listPortalSessions(t.ctx, account.id)).toHaveLength(1);
  });

  it('consumes the login session at Done: replaying the call is login_session_missing', async () => {
    const account = await createAccount(t.ctx.db, { password });
    const browser = t.agent();
    const started = await start(browser, account.email);
    const body = { session_id: started.body.session_id, email: account.email, password };
    expect((await browser.post('/auth/login/verify-password').send(body)).status).toBe(200);
    const replay = await browser.post('/auth/login/verify-password').send(body);
    expect(replay.status).toBe(401);
    expect(errorType(replay)).toBe('login_session_missing');
  });

  it('refuses a wrong password with invalid_credentials and the spec message', async () => {
    const account = await createAccount(t.ctx.db, { password });
    const browser = t.agent();
    const started = await start(browser, account.email);
    const res = await browser
      .post('/auth/login/verify-password')
      .send({ session_id: started.body.session_id, email: account.email, password: 'correct-horse-9' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: [{ type: 'invalid_credentials', msg: 'Invalid credentials' }] });
    const failed = await t.ctx.db('audit_events').where({ target_account_id: account.id, action: 'login.failed' }).first();
    expect(failed.details).toMatchObject({ method: 'password', reason: 'invalid_credentials' });
  });

  it('answers invalid_credentials for an account without a password (Google only)', async () => {
    const account = await createAccount(t.ctx.db, { oidc: ['accounts.google.com'] });
    const browser = t.agent();
    const started = await start(browser, account.email);
    expect(started.body.state).toBe('CredentialsRequired');
    expect(started.body.available_credentials).toEqual([{ id: expect.any(String), type: 'oidc', provider: 'accounts.google.com' }]);
    const res = await browser.post('/auth/login/verify-password').send({ session_id: started.body.session_id, email: account.email, password });
    expect(res.status).toBe(401);
    expect(errorType(res)).toBe('invalid_credentials');
  });

  it('verifies an imported bcrypt hash and upgrades it to argon2id', async () => {
    const account = await createAccount(t.ctx.db, { bcryptPassword: 'Legacy-Pass-42' });
    expect(await passwordHashOf(t.ctx.db, account.id)).toMatch(/^\$2b\$/);
    const res = await signInWithPassword(t.agent(), account.email, 'Legacy-Pass-42');
    expect(res.body.state).toBe('Done');
    const upgraded = await passwordHashOf(t.ctx.db, account.id);
    expect(upgraded).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect((await signInWithPassword(t.agent(), account.email, 'Legacy-Pass-42')).body.state).toBe('Done');
  });

  it('does not upgrade over a password set while the legacy hash was being checked (a reset racing the old password)', async () => {
    const account = await createAccount(t.ctx.db, { bcryptPassword: 'Old-Leaked-42' });
    // The sign-in has read the bcrypt hash; the owner's reset lands before its check ends.
    const facts = await loadAccountFacts(t.ctx, account.email);
    const reset = await hashPassword('Brand-New-Secret-7');
    await t.ctx.db.transaction((trx) => setPasswordHash(trx, account.id, reset, new Date()));
    const result = await passwordVerifier.verify({ ctx: t.ctx, session: {} as never, ...facts }, { password: 'Old-Leaked-42' });
    expect(result.ok).toBe(true);
    expect(await passwordHashOf(t.ctx.db, account.id)).toBe(reset);
    expect((await signInWithPassword(t.agent(), account.email, 'Old-Leaked-42')).status).toBe(401);
    expect((await signInWithPassword(t.agent(), account.email, 'Brand-New-Secret-7')).body.state).toBe('Done');
  });

  it('sends stakeholders who are not users to /auth/athena and an OAuth interaction back to it', async () => {
    const stakeholder = await createAccount(t.ctx.db, { password, is_user: false, is_stakeholder: true });
    const done = await signInWithPassword(t.agent(), stakeholder.email, password);
    expect(done.body).toMatchObject({ state: 'Done', is_stakeholder: true, is_user: false, redirect_to: '/auth/athena' });

    const user = await createAccount(t.ctx.db, { password });
    const browser = t.agent();
    const started = await start(browser, user.email, '?interaction=abc_DEF-123&client_id=tenant-app');
    const finished = await browser.post('/auth/login/verify-password').send({ session_id: started.body.session_id, email: user.email, password });
    expect(finished.body.redirect_to).toBe('/auth/interaction/abc_DEF-123/finish');
  });

  it('refuses an interaction id that could escape its path segment', async () => {
    const res = await t.agent().post('/auth/login/start?interaction=..%2F..%2Fevil').send({ email: 'x@example.com' });
    expect(res.status).toBe(422);
    expect(errorType(res)).toBe('validation_error');
  });

  it('binds the flow to the browser: a session_id without its cookie, or another one, is login_session_missing', async () => {
    const account = await createAccount(t.ctx.db, { password });
    const owner = t.agent();
    const started = await start(owner, account.email);
    const other = t.agent();
    await start(other, account.email);
    for (const browser of [t.agent(), other]) {
      const res = await browser.post('/auth/login/verify-password').send({ session_id: started.body.session_id, email: account.email, password });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: [{ type: 'login_session_missing', msg: 'Login session is expired' }] });
    }
    const own = await owner.post('/auth/login/verify-password').send({ session_id: started.body.session_id, email: account.email, password });
    expect(own.body.state).toBe('Done');
  });

  it('refuses an email other than the session’s with invalid_login_session_state', async () => {
    const account = await createAccount(t.ctx.db, { password });
    const other = await createAccount(t.ctx.db, { password });
    const browser = t.agent();
    const started = await start(browser, account.email);
    const res = await browser.post('/auth/login/verify-password').send({ session_id: started.body.session_id, email: other.email, password });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ detail: [{ type: 'invalid_login_session_state', msg: 'Invalid login session state' }] });
  });

  it('refuses calls of another step with invalid_login_session_state', async () => {
    const account = await createAccount(t.ctx.db, { password });
    const browser = t.agent();
    const { body } = await start(browser, account.email);
    const calls: [string, Record<string, unknown>][] = [
      ['/auth/login/verify-otp', { session_id: body.session_id, email: account.email, otp: '123456' }],
      ['/auth/login/resend-otp', { session_id: body.session_id }],
      ['/auth/login/create-password', { session_id: body.session_id, password: 'Another-Pass-1' }],
      ['/auth/login/skip-create-password', { session_id: body.session_id }],
      ['/auth/login/verify-mfa', { session_id: body.session_id, totp_code: '123456' }],
      ['/auth/login/merge-mfa', { session_id: body.session_id, totp_code: '123456' }],
    ];
    for (const [path, payload] of calls) {
      const res = await browser.post(path).send(payload);
      expect([path, res.status, errorType(res)]).toEqual([path, 409, 'invalid_login_session_state']);
    }
  });
});

describe('second factor', () => {
  it('asks a TOTP-enrolled account for its code after the password (TOTP itself: test/totp)', async () => {
    const account = await createAccount(t.ctx.db, { password, totp: 1 });
    const browser = t.agent();
    const res = await signInWithPassword(browser, account.email, password);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'MfaRequired', allow_totp_remember: true });
    expect(setCookies(res).has('nyckel_session')).toBe(false);
    const mfa = await browser.post('/auth/login/verify-mfa').send({ session_id: res.body.session_id, totp_code: '123456', remember: true });
    expect([mfa.status, errorType(mfa)]).toEqual([401, 'mfa/invalid']);
    const merge = await browser.post('/auth/login/merge-mfa').send({ session_id: res.body.session_id, totp_code: '123456' });
    expect(errorType(merge)).toBe('invalid_login_session_state');
  });

  it('asks an account with several TOTP credentials to keep one', async () => {
    const account = await createAccount(t.ctx.db, { password, totp: 2 });
    const browser = t.agent();
    const res = await signInWithPassword(browser, account.email, password);
    expect(res.body).toMatchObject({ state: 'TOTPResetRequired', allow_totp_remember: false });
    expect(res.body.available_credentials.filter((c: { type: string }) => c.type === 'totp')).toHaveLength(2);
    const merge = await browser.post('/auth/login/merge-mfa').send({ session_id: res.body.session_id, totp_code: '123456' });
    expect([merge.status, errorType(merge)]).toEqual([401, 'mfa/invalid']);
    const mfa = await browser.post('/auth/login/verify-mfa').send({ session_id: res.body.session_id, totp_code: '123456' });
    expect(errorType(mfa)).toBe('invalid_login_session_state');
  });
});

describe('lockout', () => {
  const wrong = async (browser: ReturnType<TestApp['agent']>, sessionId: string, email: string, pass = 'Wrong-Pass-1') =>
    browser.post('/auth/login/verify-password').send({ session_id: sessionId, email, password: pass });

  it('locks after 10 failures in 15 minutes, even the right password, and unlocks after 15 minutes', async () => {
    const account = await createAccount(t.ctx.db, { password });
    const browser = t.agent();
    const { body } = await start(browser, account.email);
    for (let i = 1; i <= 9; i += 1) expect(errorType(await wrong(browser, body.session_id, account.email))).toBe('invalid_credentials');
    const tenth = await wrong(browser, body.session_id, account.email);
    expect(tenth.status).toBe(423);
    expect(tenth.body).toEqual({ detail: [{ type: 'account_locked', msg: 'Account temporarily locked after too many failed attempts' }] });
    expect(Number(tenth.headers['retry-after'])).toBeGreaterThan(800);

    const right = await wrong(browser, body.session_id, account.email, password);
    expect([right.status, errorType(right)]).toEqual([423, 'account_locked']);
    expect(errorType(await start(t.agent(), account.email))).toBe('account_locked');
    const row = await t.ctx.db('accounts').where({ id: account.id }).first('locked_until');
    expect(row.locked_until).not.toBeNull();
    expect(await t.ctx.db('audit_events').where({ target_account_id: account.id, action: 'login.locked' })).toHaveLength(1);

    t.ctx.advance(15 * 60 * 1000 + 1000);
    const done = await signInWithPassword(t.agent(), account.email, password);
    expect(done.body.state).toBe('Done');
    expect((await t.ctx.db('accounts').where({ id: account.id }).first('locked_until')).locked_until).toBeNull();
  });

  it('verifies no more than 10 of a parallel burst of wrong passwords, and locks', async () => {
    const account = await createAccount(t.ctx.db, { password });
    const browser = t.agent();
    const { body } = await start(browser, account.email);
    const answers = await Promise.all(Array.from({ length: 25 }, () => wrong(browser, body.session_id, account.email)));
    expect(new Set(answers.map(errorType))).toEqual(new Set(['invalid_credentials', 'account_locked']));
    const failed = await t.ctx.db('audit_events').where({ target_account_id: account.id, action: 'login.failed' });
    expect(failed.length).toBeLessThanOrEqual(10);
    expect(await t.ctx.db('audit_events').where({ target_account_id: account.id, action: 'login.locked' })).toHaveLength(1);
    expect(errorType(await start(t.agent(), account.email))).toBe('account_locked');
  });

  it('never refuses without a lock: an attempt past the limit gives its place back', async () => {
    const email = `places-${Date.now()}@example.com`;
    const meta = { accountId: null, method: 'password', reason: 'invalid_credentials', ip: null, userAgent: null };
    for (let i = 0; i < 9; i += 1) await (await reserveAttempt(t.ctx, { email })).failed(meta);
    const tenth = await reserveAttempt(t.ctx, { email });
    // While the tenth is verified, an eleventh is refused unverified...
    await expect(reserveAttempt(t.ctx, { email })).rejects.toMatchObject({ type: 'account_locked' });
    // ...and once the tenth turns out right, the next attempt is verified again.
    await tenth.release();
    const next = await reserveAttempt(t.ctx, { email });
    await next.release();
  });

  it('a successful sign-in clears the failure count', async () => {
    const account = await createAccount(t.ctx.db, { password });
    const browser = t.agent();
    let { body } = await start(browser, account.email);
    for (let i = 0; i < 9; i += 1) await wrong(browser, body.session_id, account.email);
    expect((await wrong(browser, body.session_id, account.email, password)).body.state).toBe('Done');
    ({ body } = await start(browser, account.email));
    for (let i = 0; i < 9; i += 1) expect(errorType(await wrong(browser, body.session_id, account.email))).toBe('invalid_credentials');
  });
});
