import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRememberedDevices, rememberDevice } from '../../src/login/remembered-device.ts';
import { createResetLink } from '../../src/login/reset.service.ts';
import { listPortalSessions } from '../../src/session/portal-session.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { StoreUnavailableError } from '../../src/store/store.ts';
import { codeAt, createTotpAccount, nextStep, password as totpAccountPassword } from '../totp/helpers.ts';
import { createAccount, passwordHashOf, uniqueEmail } from './fixtures.ts';
import { errorType, setCookies, signInWithPassword, start, startWithCode, tokenFrom } from './journey.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const request = (email: string, extra: Record<string, unknown> = {}, language = 'en-GB,en;q=0.8') =>
  t.agent().set('Accept-Language', language).post('/auth/reset/request').send({ email, ...extra });
const checkToken = (token: string) => t.agent().post('/auth/reset/check-token').send({ token });
const confirm = (token: string, password: string) => t.agent().post('/auth/reset/confirm').send({ token, password });

describe('forgot password', () => {
  it('answers the same for an unknown address and sends nothing', async () => {
    const known = await createAccount(t.ctx.db, { password: 'Old-Password-1' });
    const unknown = uniqueEmail('nobody');
    const timed = async (email: string) => {
      const began = performance.now();
      const res = await request(email);
      return Object.assign(res, { elapsed: performance.now() - began });
    };
    const a = await timed(known.email);
    const b = await timed(unknown);
    // Both answers wait for the random 100–200 ms floor that hides the extra work for a real account.
    expect(a.elapsed).toBeGreaterThanOrEqual(95);
    expect(b.elapsed).toBeGreaterThanOrEqual(95);
    expect([a.status, a.body]).toEqual([200, { status: 'sent' }]);
    expect([b.status, b.body]).toEqual([200, { status: 'sent' }]);
    await t.mail.waitFor(known.email);
    expect(t.mail.to(unknown)).toHaveLength(0);
    const audit = await t.ctx.db('audit_events').where({ action: 'password_reset.requested' }).select('target_account_id', 'details');
    expect(audit).toEqual(
      expect.arrayContaining([
        { target_account_id: known.id, details: { email: known.email } },
        { target_account_id: null, details: { email: unknown } },
      ]),
    );
  });

  it('full reset: link → check → weak password refused → new password → sign in; the link works once', async () => {
    const account = await createAccount(t.ctx.db, { password: 'Old-Password-1', locale: 'sv' });
    const browser = t.agent();
    await signInWithPassword(browser, account.email, 'Old-Password-1');
    expect(await listPortalSessions(t.ctx, account.id)).toHaveLength(1);
    await rememberDevice(t.ctx, account.id, 'Firefox', undefined);
    expect(await listRememberedDevices(t.ctx, account.id, undefined)).toHaveLength(1);

    await request(account.email, { type: 'athena' }, 'sv-SE,sv;q=0.9,en;q=0.5');
    const mail = await t.mail.waitFor(account.email);
    expect(mail.subject).toBe('Återställ ditt lösenord');
    expect(mail.text).toContain(`${t.ctx.config.publicUrl}/login/set-password/`);
    const token = tokenFrom(mail);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stored = await t.ctx.db('password_reset_tokens').where({ account_id: account.id }).first();
    expect(stored.token_hash).not.toContain(token);

    expect((await checkToken(token)).body).toEqual({ email_hint: `${account.email[0]}***@example.com` });
    const weak = await confirm(token, 'short');
    expect([weak.status, weak.body]).toEqual([422, { detail: [{ type: 'weak_password', msg: 'Password must be at least 9 characters' }] }]);
    const done = await confirm(token, 'New-Password-2');
    expect([done.status, done.body]).toEqual([200, { type: 'athena' }]);
    expect(setCookies(done).has('nyckel_session')).toBe(false);

    // A security notice: when, from where, in the account's language.
    const notice = await t.mail.waitFor(account.email);
    expect(notice.subject).toBe('Ditt lösenord har bytts');
    expect(notice.text).toMatch(/Det hände den .+ \(svensk tid\)/);
    expect(await listPortalSessions(t.ctx, account.id)).toHaveLength(0);
    // Signed out everywhere: remembered browsers too (the OIDC grants: test/oidc/oidc-flow.test.ts).
    expect(await listRememberedDevices(t.ctx, account.id, undefined)).toHaveLength(0);
    expect(await t.ctx.db('audit_events').where({ target_account_id: account.id, action: 'password_reset.completed' })).toHaveLength(1);

    const again = await confirm(token, 'Third-Password-3');
    expect([again.status, again.body]).toEqual([406, { detail: [{ type: 'reset_failed', msg: 'Password reset failed' }] }]);
    const check = await checkToken(token);
    expect([check.status, check.body]).toEqual([406, { detail: [{ type: 'invalid_token', msg: 'Invalid or expired token' }] }]);

    expect(errorType(await signInWithPassword(t.agent(), account.email, 'Old-Password-1'))).toBe('invalid_credentials');
    expect((await signInWithPassword(t.agent(), account.email, 'New-Password-2')).body.state).toBe('Done');
  });

  it('ends a lock, in the console’s view too: the account no longer shows locked_until', async () => {
    const account = await createAccount(t.ctx.db, { password: 'Old-Password-1' });
    const stranger = t.agent();
    for (let i = 0; i < 10; i += 1) {
      const started = await start(stranger, account.email);
      await stranger.post('/auth/login/verify-password').send({ session_id: started.body.session_id, email: account.email, password: 'Wrong-1-Pass' });
    }
    expect(errorType(await start(t.agent(), account.email))).toBe('account_locked');
    expect((await t.ctx.db('accounts').where({ id: account.id }).first('locked_until')).locked_until).not.toBeNull();

    const { link } = await createResetLink(t.ctx, account.id);
    expect((await confirm(link.split('/').pop()!, 'New-Password-2')).status).toBe(200);
    expect((await t.ctx.db('accounts').where({ id: account.id }).first('locked_until')).locked_until).toBeNull();
    expect((await signInWithPassword(t.agent(), account.email, 'New-Password-2')).body.state).toBe('Done');
  });

  it('a reset returns type null when the request named none', async () => {
    const account = await createAccount(t.ctx.db, { password: 'Old-Password-1' });
    await request(account.email);
    const token = tokenFrom(await t.mail.waitFor(account.email));
    expect((await confirm(token, 'New-Password-2')).body).toEqual({ type: null });
  });

  it('a newer link kills the older one', async () => {
    const account = await createAccount(t.ctx.db);
    await request(account.email);
    const older = tokenFrom(await t.mail.waitFor(account.email));
    await request(account.email);
    const newer = tokenFrom(await t.mail.waitFor(account.email));
    expect(errorType(await checkToken(older))).toBe('invalid_token');
    expect(errorType(await confirm(older, 'New-Password-2'))).toBe('reset_failed');
    expect((await confirm(newer, 'New-Password-2')).status).toBe(200);
  });

  it('a password created at sign-in kills outstanding links', async () => {
    const account = await createAccount(t.ctx.db);
    const { link } = await createResetLink(t.ctx, account.id);
    const token = link.split('/').pop()!;
    const { startWithCode } = await import('./journey.ts');
    const browser = t.agent();
    const { sessionId, code } = await startWithCode(browser, t.mail, account.email);
    await browser.post('/auth/login/verify-otp').send({ session_id: sessionId, email: account.email, otp: code });
    await browser.post('/auth/login/create-password').send({ session_id: sessionId, password: 'Created-Pass-5' });
    expect(errorType(await checkToken(token))).toBe('invalid_token');
  });

  it('ends sign-ins in progress: one that passed the old password does not finish its second factor', async () => {
    const account = await createTotpAccount(t.ctx);
    const secret = account.secrets[0]!;
    const resetTo = async (password: string) => {
      const { link } = await createResetLink(t.ctx, account.id);
      expect((await confirm(link.split('/').pop()!, password)).status).toBe(200);
    };
    const mfa = (browser: ReturnType<TestApp['agent']>, sessionId: string, code: string) =>
      browser.post('/auth/login/verify-mfa').send({ session_id: sessionId, totp_code: code });

    // Someone holding the old password reaches MfaRequired; the owner then resets the password.
    const racer = t.agent();
    const afterPassword = await signInWithPassword(racer, account.email, totpAccountPassword);
    expect(afterPassword.body.state).toBe('MfaRequired');
    await resetTo('New-Password-2');
    const refused = await mfa(racer, afterPassword.body.session_id, await codeAt(t.ctx, secret));
    expect([refused.status, errorType(refused)]).toEqual([401, 'login_session_missing']);
    expect(setCookies(refused).has('nyckel_session')).toBe(false);
    expect(await listPortalSessions(t.ctx, account.id)).toHaveLength(0);
    // The login session is gone: the right code again does not finish it either.
    t.ctx.advance(30_000);
    expect(errorType(await mfa(racer, afterPassword.body.session_id, await codeAt(t.ctx, secret)))).toBe('login_session_missing');

    // A sign-in started before a reset whose password step comes after it (the new password) finishes.
    const owner = t.agent();
    const started = await start(owner, account.email);
    await resetTo('Third-Password-3');
    const proven = await owner.post('/auth/login/verify-password').send({ session_id: started.body.session_id, email: account.email, password: 'Third-Password-3' });
    expect(proven.body.state).toBe('MfaRequired');
    t.ctx.advance(30_000);
    const done = await mfa(owner, started.body.session_id, await codeAt(t.ctx, secret));
    expect([done.status, done.body.state]).toEqual([200, 'Done']);
    expect(await listPortalSessions(t.ctx, account.id)).toHaveLength(1);
  });

  it('a sign-in whose second factor is checked just as a reset lands keeps no session: looked at again once it exists', async () => {
    const account = await createTotpAccount(t.ctx);
    const racer = t.agent();
    const afterPassword = await signInWithPassword(racer, account.email, totpAccountPassword);
    expect(afterPassword.body.state).toBe('MfaRequired');
    // The race, put in order: finish() reads the reset's mark (none yet), then the whole reset
    // runs (mark, new password, sign-out everywhere) before finish() creates its portal session.
    const store = t.ctx.store;
    const get = store.get.bind(store);
    let armed = true;
    store.get = async (key: string) => {
      const value = await get(key);
      if (armed && key === `credentials-changed:${account.id}`) {
        armed = false;
        const { link } = await createResetLink(t.ctx, account.id);
        expect((await confirm(link.split('/').pop()!, 'New-Password-2')).status).toBe(200);
      }
      return value;
    };
    try {
      const refused = await racer
        .post('/auth/login/verify-mfa')
        .send({ session_id: afterPassword.body.session_id, totp_code: await codeAt(t.ctx, account.secrets[0]!) });
      expect(armed).toBe(false);
      expect([refused.status, errorType(refused)]).toEqual([401, 'login_session_missing']);
      expect(setCookies(refused).has('nyckel_session')).toBe(false);
      expect(await listPortalSessions(t.ctx, account.id)).toHaveLength(0);
    } finally {
      store.get = get;
    }
  });

  it('a store failure at the second look answers 503 and keeps the sign-in: the retry finishes it', async () => {
    const account = await createTotpAccount(t.ctx);
    const browser = t.agent();
    const afterPassword = await signInWithPassword(browser, account.email, totpAccountPassword);
    const store = t.ctx.store;
    const get = store.get.bind(store);
    let looks = 0;
    store.get = async (key: string) => {
      if (key === `credentials-changed:${account.id}` && ++looks === 2) throw new StoreUnavailableError('store down (test)');
      return get(key);
    };
    try {
      const failed = await browser.post('/auth/login/verify-mfa').send({ session_id: afterPassword.body.session_id, totp_code: await codeAt(t.ctx, account.secrets[0]!) });
      expect([failed.status, errorType(failed)]).toEqual([503, 'service_unavailable']);
    } finally {
      store.get = get;
    }
    expect(await listPortalSessions(t.ctx, account.id)).toHaveLength(0);
    nextStep(t.ctx);
    const retried = await browser.post('/auth/login/verify-mfa').send({ session_id: afterPassword.body.session_id, totp_code: await codeAt(t.ctx, account.secrets[0]!) });
    expect([retried.status, retried.body.state]).toEqual([200, 'Done']);
  });

  it('mails "your password was changed" even when the store fails after the new password is committed', async () => {
    const account = await createAccount(t.ctx.db, { password: 'Old-Password-1', locale: 'en' });
    const { link } = await createResetLink(t.ctx, account.id);
    const store = t.ctx.store;
    const set = store.set.bind(store);
    // Redis fails the sign-out's first step (the mark that stops sign-ins in progress).
    store.set = async (key: string, value: string, ttl: number) => {
      if (key === `credentials-changed:${account.id}`) throw new StoreUnavailableError('store down (test)');
      return set(key, value, ttl);
    };
    try {
      const failed = await confirm(link.split('/').pop()!, 'New-Password-12!');
      expect([failed.status, errorType(failed)]).toEqual([503, 'service_unavailable']);
    } finally {
      store.set = set;
    }
    // The password changed: its holder hears of it, whatever the store did.
    const notice = await t.mail.waitFor(account.email);
    expect(notice.subject).toBe('Your password was changed');
  });

  it('a sign-in overtaken by a reset sets no password on its ask-to-create step: the owner\'s stays', async () => {
    // Someone who read one emailed code reaches the offer to create a password; the owner then
    // sets their own through a set-password link.
    const account = await createAccount(t.ctx.db);
    const racer = t.agent();
    const { sessionId, code } = await startWithCode(racer, t.mail, account.email);
    const asked = await racer.post('/auth/login/verify-otp').send({ session_id: sessionId, email: account.email, otp: code });
    expect(asked.body.state).toBe('AskedCreateCredential');
    const { link } = await createResetLink(t.ctx, account.id);
    expect((await confirm(link.split('/').pop()!, 'Owners-Password-1')).status).toBe(200);
    const owners = await passwordHashOf(t.ctx.db, account.id);

    const refused = await racer.post('/auth/login/create-password').send({ session_id: sessionId, password: 'Racers-Password-1' });
    expect([refused.status, errorType(refused)]).toEqual([401, 'login_session_missing']);
    expect(await passwordHashOf(t.ctx.db, account.id)).toBe(owners);
    expect(await t.ctx.db('audit_events').where({ target_account_id: account.id, action: 'password.created' })).toEqual([]);
    expect(await listPortalSessions(t.ctx, account.id)).toHaveLength(0);
    expect((await signInWithPassword(t.agent(), account.email, 'Owners-Password-1')).body.state).toBe('Done');
  });

  it('the ask-to-create step creates only the first password: a second sign-in at the same step replaces nothing', async () => {
    const account = await createAccount(t.ctx.db);
    const [laptop, phone] = [t.agent(), t.agent()];
    const onLaptop = await startWithCode(laptop, t.mail, account.email);
    const onPhone = await startWithCode(phone, t.mail, account.email);
    for (const [browser, { sessionId, code }] of [[laptop, onLaptop], [phone, onPhone]] as const) {
      const asked = await browser.post('/auth/login/verify-otp').send({ session_id: sessionId, email: account.email, otp: code });
      expect(asked.body.state).toBe('AskedCreateCredential');
    }
    const created = await laptop.post('/auth/login/create-password').send({ session_id: onLaptop.sessionId, password: 'Laptop-Password-1' });
    expect(created.body.state).toBe('Done');
    const first = await passwordHashOf(t.ctx.db, account.id);
    const second = await phone.post('/auth/login/create-password').send({ session_id: onPhone.sessionId, password: 'Phone-Password-1' });
    expect([second.status, errorType(second)]).toEqual([409, 'invalid_login_session_state']);
    expect(await t.ctx.db('credentials').where({ account_id: account.id, type: 'password' }).pluck('secret')).toEqual([first]);
  });

  it('a sign-in overtaken by a reset merges no authenticators: both stay', async () => {
    const account = await createTotpAccount(t.ctx, { totp: 2 });
    const racer = t.agent();
    const step = await signInWithPassword(racer, account.email, totpAccountPassword);
    expect(step.body.state).toBe('TOTPResetRequired');
    const { link } = await createResetLink(t.ctx, account.id);
    expect((await confirm(link.split('/').pop()!, 'New-Password-2')).status).toBe(200);
    const refused = await racer.post('/auth/login/merge-mfa').send({ session_id: step.body.session_id, totp_code: await codeAt(t.ctx, account.secrets[0]!) });
    expect([refused.status, errorType(refused)]).toEqual([401, 'login_session_missing']);
    expect(await t.ctx.db('credentials').where({ account_id: account.id, type: 'totp' }).orderBy('created_at').pluck('id')).toEqual(account.totpIds);
  });

  it('a password change from the profile ends sign-ins in progress too', async () => {
    const account = await createTotpAccount(t.ctx);
    const secret = account.secrets[0]!;
    const mfa = async (browser: ReturnType<TestApp['agent']>, sessionId: string) =>
      browser.post('/auth/login/verify-mfa').send({ session_id: sessionId, totp_code: await codeAt(t.ctx, secret) });
    const owner = t.agent();
    const ownerStep = await signInWithPassword(owner, account.email, totpAccountPassword);
    expect((await mfa(owner, ownerStep.body.session_id)).body.state).toBe('Done');

    const racer = t.agent();
    const racerStep = await signInWithPassword(racer, account.email, totpAccountPassword);
    expect(racerStep.body.state).toBe('MfaRequired');
    const changed = await owner.post('/api/accounts/password').send({ current_password: totpAccountPassword, new_password: 'Changed-Password-4' });
    expect(changed.status).toBe(200);
    t.ctx.advance(30_000);
    const refused = await mfa(racer, racerStep.body.session_id);
    expect([refused.status, errorType(refused)]).toEqual([401, 'login_session_missing']);
    expect(await listPortalSessions(t.ctx, account.id)).toHaveLength(1);
  });

  it('a link expires after one hour', async () => {
    const account = await createAccount(t.ctx.db);
    const { link } = await createResetLink(t.ctx, account.id, { type: 'athena' });
    const token = link.split('/').pop()!;
    expect((await checkToken(token)).status).toBe(200);
    t.ctx.advance(60 * 60 * 1000 + 1000);
    expect(errorType(await checkToken(token))).toBe('invalid_token');
    expect(errorType(await confirm(token, 'New-Password-2'))).toBe('reset_failed');
  });

  it('builds links from the configured public URL, never from the Host header', async () => {
    const account = await createAccount(t.ctx.db);
    await t.agent().set('Host', 'evil.example').set('X-Forwarded-Host', 'evil.example').post('/auth/reset/request').send({ email: account.email });
    const mail = await t.mail.waitFor(account.email);
    expect(mail.text).toContain(`${t.ctx.config.publicUrl}/login/set-password/`);
    expect(mail.text + mail.html).not.toContain('evil.example');
  });

  it('garbage tokens are invalid (406), never 5xx', async () => {
    for (const token of ['', 'x', '../../etc/passwd', 'A'.repeat(512)]) {
      expect((await checkToken(token)).status).toBe(406);
      expect((await confirm(token, 'New-Password-2')).status).toBe(406);
    }
  });

  it('refuses a malformed email (422) and a cross-site request (403)', async () => {
    expect(errorType(await request('not-an-email'))).toBe('validation_error');
    const cross = await t.agent().set('Origin', 'https://evil.example').post('/auth/reset/request').send({ email: uniqueEmail() });
    expect(cross.status).toBe(403);
  });
});

describe('migrated account (PasswordResetRequired)', () => {
  it('start mails a migration link; after setting a password the account signs in with it', async () => {
    const account = await createAccount(t.ctx.db, { password_reset_required: true, bcryptPassword: 'Imported-Old-1' });
    const started = await start(t.agent(), account.email, '?type=athena');
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ state: 'PasswordResetRequired', email: account.email });
    const mail = await t.mail.waitFor(account.email);
    expect(mail.subject).toBe('Create a new password');
    expect(mail.text).toContain('one account per email address');

    const browser = t.agent();
    const { body } = await start(browser, account.email);
    expect(body.state).toBe('PasswordResetRequired');
    const refused = await browser.post('/auth/login/verify-password').send({ session_id: body.session_id, email: account.email, password: 'Imported-Old-1' });
    expect(errorType(refused)).toBe('invalid_login_session_state');

    // The second start sent a newer link, which killed the first.
    const first = tokenFrom(mail);
    const second = tokenFrom(await t.mail.waitFor(account.email));
    expect(errorType(await checkToken(first))).toBe('invalid_token');
    expect((await confirm(second, 'Migrated-New-7')).body).toEqual({ type: null });

    const row = await t.ctx.db('accounts').where({ id: account.id }).first('password_reset_required');
    expect(row.password_reset_required).toBe(false);
    expect(await passwordHashOf(t.ctx.db, account.id)).toMatch(/^\$argon2id\$/);
    expect(await t.ctx.db('credentials').where({ account_id: account.id, type: 'password' })).toHaveLength(1);
    expect((await signInWithPassword(t.agent(), account.email, 'Migrated-New-7')).body.state).toBe('Done');
  });
});
