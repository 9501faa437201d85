import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../fixtures/accounts.ts';
import { BrowserLike } from '../helpers/browser-like.ts';
import { startMailServer, type MailServer } from '../helpers/mail-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { tokenFrom } from '../login/journey.ts';
import { lockoutPolicy } from '../../src/login/lockout.ts';
import { call, getJson, PASSWORD, person, signedInBrowser } from './helpers.ts';

let server: TestServer;
let mail: MailServer;

beforeAll(async () => {
  mail = await startMailServer();
  server = await startTestServer({ smtpUrl: mail.url });
});

afterAll(async () => {
  await server?.close();
  await mail?.close();
});

const NEW_PASSWORD = 'Brand-New-Secret-42';
const change = (browser: BrowserLike, body: Record<string, unknown>) => call(browser, 'POST', '/api/accounts/password', body);
const type = (res: { body: unknown }) => (res.body as { detail?: { type: string }[] }).detail?.[0]?.type;

async function signsIn(email: string, password: string): Promise<string> {
  const browser = new BrowserLike(server.base);
  const start = await browser.json<{ session_id?: string; detail?: { type: string }[] }>('/auth/login/start', { email });
  if (!start.body.session_id) return start.body.detail![0]!.type;
  const res = await browser.json<{ state?: string; detail?: { type: string }[] }>('/auth/login/verify-password', { session_id: start.body.session_id, email, password });
  return res.body.state ?? res.body.detail![0]!.type;
}

/** A Stakeholder signed in by email code (it has no password), as the sharing portal's people are. */
async function stakeholderWithoutPassword(): Promise<{ id: string; email: string; browser: BrowserLike }> {
  const email = `stakeholder-${Date.now()}-${Math.random().toString(16).slice(2, 8)}@example.com`;
  const id = await createAccount(server.ctx.db, { email, is_user: false, is_stakeholder: true });
  return { id, email, browser: await signInByCode(email) };
}

async function signInByCode(email: string, browser = new BrowserLike(server.base)): Promise<BrowserLike> {
  const start = await browser.json<{ state: string; session_id: string }>('/auth/login/start', { email });
  expect(start.body.state).toBe('OTPRequired');
  const code = /\b(\d{6})\b/.exec((await mail.waitFor(email)).text)![1]!;
  const done = await browser.json<{ state: string; session_id: string }>('/auth/login/verify-otp', { session_id: start.body.session_id, email, otp: code });
  // Asked to create a password: the person skips it.
  expect(done.body.state).toBe('AskedCreateCredential');
  const skipped = await browser.json<{ state: string }>('/auth/login/skip-create-password', { session_id: done.body.session_id });
  expect(skipped.body.state).toBe('Done');
  return browser;
}

const credentials = (accountId: string, type?: string) =>
  server.ctx.db('credentials').where({ account_id: accountId, ...(type ? { type } : {}) }).pluck('id');
const sixMinutes = 6 * 60 * 1000;

describe('POST /api/accounts/password', () => {
  it('changes the password, keeps this session, signs out the others on request and mails a notice', async () => {
    const { id, email } = await person(server);
    const other = await signedInBrowser(server, email);
    const browser = await signedInBrowser(server, email);

    const res = await change(browser, { current_password: PASSWORD, new_password: NEW_PASSWORD, sign_out_others: true });
    expect(res).toEqual({ status: 200, body: { signed_out: 1 } });
    expect((await getJson(browser, '/oauth2/userinfo')).status).toBe(200);
    expect((await getJson(other, '/oauth2/userinfo')).status).toBe(401);
    expect(await signsIn(email, PASSWORD)).toBe('invalid_credentials');
    expect(await signsIn(email, NEW_PASSWORD)).toBe('Done');
    expect((await mail.waitFor(email)).subject).toBe('Your password was changed');
    const audit = await server.ctx.db('audit_events').where({ target_account_id: id, action: 'password.changed' }).pluck('details');
    expect(audit).toEqual([{ via: 'profile', sign_out_others: true }]);
  });

  it('signs the other sessions out when sign_out_others is left out, keeping this one', async () => {
    const { id, email } = await person(server);
    const other = await signedInBrowser(server, email);
    const browser = await signedInBrowser(server, email);
    expect(await change(browser, { current_password: PASSWORD, new_password: NEW_PASSWORD })).toEqual({ status: 200, body: { signed_out: 1 } });
    expect((await getJson(other, '/oauth2/userinfo')).status).toBe(401);
    expect((await getJson(browser, '/oauth2/userinfo')).status).toBe(200);
    const audit = await server.ctx.db('audit_events').where({ target_account_id: id, action: 'password.changed' }).pluck('details');
    expect(audit).toEqual([{ via: 'profile', sign_out_others: true }]);
  });

  it('leaves other sessions alone when asked to (sign_out_others: false)', async () => {
    const { email } = await person(server);
    const other = await signedInBrowser(server, email);
    const browser = await signedInBrowser(server, email);
    expect(await change(browser, { current_password: PASSWORD, new_password: NEW_PASSWORD, sign_out_others: false })).toEqual({ status: 200, body: { signed_out: 0 } });
    expect((await getJson(other, '/oauth2/userinfo')).status).toBe(200);
  });

  it('applies the create-password rules to the new password without counting a failure', async () => {
    const { email } = await person(server);
    const browser = await signedInBrowser(server, email);
    for (const weak of ['short1!A', 'nouppercase1!', 'Password123!']) {
      const res = await change(browser, { current_password: PASSWORD, new_password: weak });
      expect([weak, res.status, type(res)]).toEqual([weak, 422, 'weak_password']);
    }
    expect(await signsIn(email, PASSWORD)).toBe('Done');
  });

  it('refuses a wrong current password and counts it toward the lockout: this browser’s own first, then the address’s', async () => {
    const { id, email } = await person(server);
    const browser = await signedInBrowser(server, email);
    // The browser signed in to the address (nyckel_known): its first failures lock no one.
    for (let i = 1; i <= lockoutPolicy.maxFailures; i += 1) {
      const res = await change(browser, { current_password: 'Wrong-Password-1', new_password: NEW_PASSWORD });
      expect([i, res.status, type(res)]).toEqual([i, 403, 'password/current-invalid']);
    }
    expect(await signsIn(email, PASSWORD)).toBe('Done');
    // Past its own limit the browser counts against the address like any other.
    for (let i = 1; i < lockoutPolicy.maxFailures; i += 1) {
      const res = await change(browser, { current_password: 'Wrong-Password-1', new_password: NEW_PASSWORD });
      expect([i, res.status, type(res)]).toEqual([i, 403, 'password/current-invalid']);
    }
    const locking = await change(browser, { current_password: 'Wrong-Password-1', new_password: NEW_PASSWORD });
    expect([locking.status, type(locking)]).toEqual([423, 'account_locked']);
    // Locked: even the right password is refused, here and at sign-in.
    expect(type(await change(browser, { current_password: PASSWORD, new_password: NEW_PASSWORD }))).toBe('account_locked');
    expect(await signsIn(email, PASSWORD)).toBe('account_locked');
    const failed = await server.ctx.db('audit_events').where({ target_account_id: id, action: 'login.failed' }).pluck('details');
    expect(failed[0]).toMatchObject({ method: 'password', reason: 'profile_password_change' });
  });

  it('answers 409 password/none for an account without a password', async () => {
    const { browser } = await stakeholderWithoutPassword();
    const res = await change(browser, { current_password: 'Anything-1!', new_password: NEW_PASSWORD });
    expect([res.status, type(res)]).toEqual([409, 'password/none']);
  });

  it('refuses cross-site and non-JSON requests', async () => {
    const { email } = await person(server);
    const browser = await signedInBrowser(server, email);
    const body = { current_password: PASSWORD, new_password: NEW_PASSWORD };
    expect((await call(browser, 'POST', '/api/accounts/password', body, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await call(browser, 'POST', '/api/accounts/password', JSON.stringify(body), { 'content-type': 'text/plain' })).status).toBe(415);
    expect(await signsIn(email, PASSWORD)).toBe('Done');
  });
});

describe('the email-password switch', () => {
  it('a User’s password cannot be removed', async () => {
    const { id, email } = await person(server);
    const browser = await signedInBrowser(server, email);
    const [passwordId] = await credentials(id, 'password');
    const res = await call(browser, 'DELETE', `/oauth2/userinfo/credentials/${passwordId}`);
    expect([res.status, type(res)]).toEqual([409, 'credential/password-required']);
    expect(await credentials(id, 'password')).toEqual([passwordId]);
  });

  it('a User’s last way to sign in cannot be removed', async () => {
    const { id, email } = await person(server);
    const browser = await signedInBrowser(server, email);
    await server.ctx.db('credentials').where({ account_id: id, type: 'password' }).delete();
    const [googleId] = await server.ctx
      .db('credentials')
      .insert({ account_id: id, type: 'oidc', provider: 'accounts.google.com', subject: `google-${id}` })
      .returning('id')
      .then((rows) => rows.map((row: { id: string }) => row.id));
    const res = await call(browser, 'DELETE', `/oauth2/userinfo/credentials/${googleId}`);
    expect([res.status, type(res)]).toEqual([409, 'credential/last-sign-in-method']);
    expect(await credentials(id)).toEqual([googleId]);
  });

  it('removing any sign-in method needs a recent sign-in, a Google one too', async () => {
    const { id, email } = await person(server);
    const browser = await signedInBrowser(server, email);
    const [googleId] = (await server.ctx
      .db('credentials')
      .insert({ account_id: id, type: 'oidc', provider: 'accounts.google.com', subject: `google-stale-${id}` })
      .returning('id')) as { id: string }[];
    server.ctx.advance(sixMinutes);
    const stale = await call(browser, 'DELETE', `/oauth2/userinfo/credentials/${googleId!.id}`);
    expect([stale.status, type(stale)]).toEqual([403, 'reauthentication_required']);
    const fresh = await signedInBrowser(server, email);
    expect((await call(fresh, 'DELETE', `/oauth2/userinfo/credentials/${googleId!.id}`)).status).toBe(204);
  });

  it('another person’s credential id is 404, not 403', async () => {
    const mine = await person(server);
    const theirs = await person(server);
    const browser = await signedInBrowser(server, mine.email);
    const [theirPassword] = await credentials(theirs.id, 'password');
    const res = await call(browser, 'DELETE', `/oauth2/userinfo/credentials/${theirPassword}`);
    expect([res.status, type(res)]).toEqual([404, 'not_found']);
  });

  it('a Stakeholder turns it on by a mailed set-password link, and off again', async () => {
    const { id, email, browser } = await stakeholderWithoutPassword();
    const on = await call(browser, 'POST', '/api/accounts/password/setup-link', {});
    expect(on).toEqual({ status: 202, body: { status: 'accepted' } });
    const link = await mail.waitFor(email);
    expect(link.subject).toBe('Set a password for your account');
    const confirmed = await browser.json('/auth/reset/confirm', { token: tokenFrom(link), password: NEW_PASSWORD });
    expect(confirmed.status).toBe(200);
    // Its first password: the notice of a password added, not "your password was changed".
    const notice = await mail.waitFor(email, (m) => m.subject !== 'Set a password for your account' && !/sign-in code/i.test(m.subject));
    expect(notice.subject).toBe('A password was added to your account');
    expect(await signsIn(email, NEW_PASSWORD)).toBe('Done');
    const [passwordId] = await credentials(id, 'password');

    // The reset ended every session; sign in with the new password.
    const fresh = new BrowserLike(server.base);
    const start = await fresh.json<{ session_id: string }>('/auth/login/start', { email });
    await fresh.json('/auth/login/verify-password', { session_id: start.body.session_id, email, password: NEW_PASSWORD });
    const off = await call(fresh, 'DELETE', `/oauth2/userinfo/credentials/${passwordId}`);
    expect(off.status).toBe(204);
    expect(await credentials(id, 'password')).toEqual([]);
    const actions = await server.ctx.db('audit_events').where({ target_account_id: id }).whereIn('action', ['password.setup_link.sent', 'credential.removed']).orderBy('id').pluck('action');
    expect(actions).toEqual(['password.setup_link.sent', 'credential.removed']);
  });

  it('asks for a recent sign-in before turning it on or off, then works after signing in again', async () => {
    const { id, email, browser } = await stakeholderWithoutPassword();
    server.ctx.advance(sixMinutes);
    const on = await call(browser, 'POST', '/api/accounts/password/setup-link', {});
    expect([on.status, type(on)]).toEqual([403, 'reauthentication_required']);
    expect(mail.to(email)).toHaveLength(1); // only the sign-in code

    await signInByCode(email, browser);
    expect((await call(browser, 'POST', '/api/accounts/password/setup-link', {})).status).toBe(202);
    expect((await mail.waitFor(email, (m) => m.subject === 'Set a password for your account')).text).toContain('/login/set-password/');
    server.ctx.advance(sixMinutes);

    await server.ctx.db('credentials').insert({ account_id: id, type: 'password', secret: 'not-a-hash' });
    const [passwordId] = await credentials(id, 'password');
    const off = await call(browser, 'DELETE', `/oauth2/userinfo/credentials/${passwordId}`);
    expect([off.status, type(off)]).toEqual([403, 'reauthentication_required']);
    expect(await credentials(id, 'password')).toEqual([passwordId]);
  });
});
