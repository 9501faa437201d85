import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listPortalSessions } from '../../src/session/portal-session.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { codeFrom, errorType, setCookies, start } from '../login/journey.ts';
import { alignToStep, codeAt, createTotpAccount, passwordStep, signIn, verifyMfa, wrongCode } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('verify-mfa: the authenticator code after the password', () => {
  it('MfaRequired → Done with amr pwd, otp, mfa; the TOTP credential is marked used', async () => {
    const account = await createTotpAccount(t.ctx);
    const browser = t.agent();
    const mfa = await passwordStep(browser, account.email);
    expect(mfa.body).toMatchObject({ state: 'MfaRequired', allow_totp_remember: true, is_user: true });
    expect(setCookies(mfa).has('nyckel_session')).toBe(false);

    const code = await codeAt(t.ctx, account.secrets[0]!);
    const done = await verifyMfa(browser, mfa.body.session_id, code);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ state: 'Done', email: account.email, redirect_to: '/login/select-tenant', allow_totp_remember: false });
    expect(setCookies(done).has('nyckel_session')).toBe(true);
    expect(setCookies(done).has('nyckel_device')).toBe(false);

    const sessions = await listPortalSessions(t.ctx, account.id);
    expect(sessions.map((s) => s.amr)).toEqual([['pwd', 'otp', 'mfa']]);
    const used = await t.ctx.db('credentials').where({ id: account.totpIds[0] }).first('last_used_at');
    expect(used.last_used_at).toBeInstanceOf(Date);
    const audit = await t.ctx.db('audit_events').where({ target_account_id: account.id, action: 'login.succeeded' }).first();
    expect(audit.details).toMatchObject({ method: 'password', amr: ['pwd', 'otp', 'mfa'] });
    expect(JSON.stringify(await t.ctx.db('audit_events').where({ target_account_id: account.id }))).not.toContain(code);
  });

  it('refuses a wrong code with mfa/invalid and the spec message; the right one still works', async () => {
    const account = await createTotpAccount(t.ctx);
    const browser = t.agent();
    const mfa = await passwordStep(browser, account.email);
    const wrong = await verifyMfa(browser, mfa.body.session_id, await wrongCode(t.ctx, account.secrets[0]!));
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ detail: [{ type: 'mfa/invalid', msg: 'Invalid code. Please try again.' }] });
    const failed = await t.ctx.db('audit_events').where({ target_account_id: account.id, action: 'login.failed' }).first();
    expect(failed.details).toMatchObject({ method: 'totp', reason: 'mfa/invalid' });
    const done = await verifyMfa(browser, mfa.body.session_id, await codeAt(t.ctx, account.secrets[0]!));
    expect(done.body.state).toBe('Done');
  });

  it('a code that is not 6 digits is a validation error', async () => {
    const account = await createTotpAccount(t.ctx);
    const browser = t.agent();
    const mfa = await passwordStep(browser, account.email);
    const res = await verifyMfa(browser, mfa.body.session_id, '12345');
    expect([res.status, errorType(res)]).toEqual([422, 'validation_error']);
  });

  it('accepts each code once: a replay in a new sign-in is mfa/invalid', async () => {
    const account = await createTotpAccount(t.ctx);
    const code = await codeAt(t.ctx, account.secrets[0]!);
    const first = t.agent();
    expect((await verifyMfa(first, (await passwordStep(first, account.email)).body.session_id, code)).body.state).toBe('Done');
    const second = t.agent();
    const replay = await verifyMfa(second, (await passwordStep(second, account.email)).body.session_id, code);
    expect([replay.status, errorType(replay)]).toEqual([401, 'mfa/invalid']);
  });

  it('of two simultaneous submissions of one code in one browser exactly one succeeds', async () => {
    const account = await createTotpAccount(t.ctx);
    const browser = t.agent();
    const mfa = await passwordStep(browser, account.email);
    const code = await codeAt(t.ctx, account.secrets[0]!);
    const answers = await Promise.all([verifyMfa(browser, mfa.body.session_id, code), verifyMfa(browser, mfa.body.session_id, code)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 401]);
    expect(answers.filter((a) => a.body.state === 'Done')).toHaveLength(1);
    expect(await listPortalSessions(t.ctx, account.id)).toHaveLength(1);
  });

  it('of two browsers submitting one code at once (a relayed code) exactly one signs in', async () => {
    const account = await createTotpAccount(t.ctx);
    const [a, b] = [t.agent(), t.agent()];
    const [sa, sb] = [await passwordStep(a, account.email), await passwordStep(b, account.email)];
    const code = await codeAt(t.ctx, account.secrets[0]!);
    const answers = await Promise.all([verifyMfa(a, sa.body.session_id, code), verifyMfa(b, sb.body.session_id, code)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 401]);
    expect(answers.map((r) => errorType(r)).filter(Boolean)).toEqual(['mfa/invalid']);
  });

  it('accepts a code one time step early or late and refuses two steps (clock injected)', async () => {
    alignToStep(t.ctx);
    const account = await createTotpAccount(t.ctx);
    const secret = account.secrets[0]!;
    const outcomes: Record<string, number> = {};
    for (const steps of [-2, 2, -1, 1]) {
      const browser = t.agent();
      const mfa = await passwordStep(browser, account.email);
      const res = await verifyMfa(browser, mfa.body.session_id, await codeAt(t.ctx, secret, steps));
      outcomes[steps] = res.status;
      if (res.status !== 200) expect(errorType(res)).toBe('mfa/invalid');
    }
    expect(outcomes).toEqual({ '-2': 401, '2': 401, '-1': 200, '1': 200 });
  });

  it('ends the login session after 5 wrong codes (mfa/retries-exceeded, 429): even the right code is refused', async () => {
    const account = await createTotpAccount(t.ctx);
    const browser = t.agent();
    const mfa = await passwordStep(browser, account.email);
    const wrong = await wrongCode(t.ctx, account.secrets[0]!);
    for (let i = 1; i <= 4; i += 1) expect(errorType(await verifyMfa(browser, mfa.body.session_id, wrong))).toBe('mfa/invalid');
    const fifth = await verifyMfa(browser, mfa.body.session_id, wrong);
    expect(fifth.status).toBe(429);
    expect(errorType(fifth)).toBe('mfa/retries-exceeded');
    const right = await verifyMfa(browser, mfa.body.session_id, await codeAt(t.ctx, account.secrets[0]!));
    expect([right.status, errorType(right)]).toEqual([401, 'login_session_missing']);
    // A new sign-in starts over with the first factor.
    expect((await passwordStep(browser, account.email)).body.state).toBe('MfaRequired');
  });

  it('simultaneous guesses get 5 tries per login session in total', async () => {
    const account = await createTotpAccount(t.ctx);
    const browser = t.agent();
    const mfa = await passwordStep(browser, account.email);
    const wrong = await wrongCode(t.ctx, account.secrets[0]!);
    const answers = await Promise.all(Array.from({ length: 8 }, () => verifyMfa(browser, mfa.body.session_id, wrong)));
    const types = answers.map((a) => errorType(a));
    expect(types.filter((x) => x === 'mfa/invalid')).toHaveLength(4);
    expect(types.every((x) => x === 'mfa/invalid' || x === 'mfa/retries-exceeded' || x === 'login_session_missing')).toBe(true);
  });

  it('wrong codes count toward the per-account lockout', async () => {
    const account = await createTotpAccount(t.ctx);
    const browser = t.agent();
    const wrong = await wrongCode(t.ctx, account.secrets[0]!);
    // 4 wrong codes in each of two sign-ins (8 failures), then 2 wrong passwords: locked.
    for (let round = 0; round < 2; round += 1) {
      const mfa = await passwordStep(browser, account.email);
      for (let i = 0; i < 4; i += 1) expect(errorType(await verifyMfa(browser, mfa.body.session_id, wrong))).toBe('mfa/invalid');
    }
    const started = await start(browser, account.email);
    const body = { session_id: started.body.session_id, email: account.email, password: 'Wrong-Pass-1' };
    expect(errorType(await browser.post('/auth/login/verify-password').send(body))).toBe('invalid_credentials');
    const locked = await browser.post('/auth/login/verify-password').send(body);
    expect([locked.status, errorType(locked)]).toEqual([423, 'account_locked']);
  });

  it('wrong codes from a browser that signed in before count against that browser, not the address', async () => {
    const account = await createTotpAccount(t.ctx);
    const browser = t.agent();
    expect((await signIn(t.ctx, browser, account)).body.state).toBe('Done');
    const wrong = await wrongCode(t.ctx, account.secrets[0]!);
    // 10 wrong codes, as many as lock the address from a stranger's browser: nobody is locked.
    for (const tries of [4, 4, 2]) {
      const mfa = await passwordStep(browser, account.email);
      for (let i = 0; i < tries; i += 1) expect(errorType(await verifyMfa(browser, mfa.body.session_id, wrong))).toBe('mfa/invalid');
    }
    expect((await start(t.agent(), account.email)).status).toBe(200);
    const failed = await t.ctx.db('audit_events').where({ target_account_id: account.id, action: 'login.failed' });
    expect(failed).toHaveLength(10);
  });

  it('an email code is one factor: code, then TOTP (amr otp, mfa), then the offer to create a password', async () => {
    const account = await createTotpAccount(t.ctx, { password: false });
    const browser = t.agent();
    const started = await start(browser, account.email);
    expect(started.body.state).toBe('OTPRequired');
    const otp = codeFrom(await t.mail.waitFor(account.email));
    const mfa = await browser.post('/auth/login/verify-otp').send({ session_id: started.body.session_id, email: account.email, otp });
    expect(mfa.body).toMatchObject({ state: 'MfaRequired', allow_totp_remember: true });
    const asked = await verifyMfa(browser, mfa.body.session_id, await codeAt(t.ctx, account.secrets[0]!));
    expect(asked.body).toMatchObject({ state: 'AskedCreateCredential', allow_totp_remember: false });
    const done = await browser.post('/auth/login/skip-create-password').send({ session_id: mfa.body.session_id });
    expect(done.body.state).toBe('Done');
    expect((await listPortalSessions(t.ctx, account.id))[0]!.amr).toEqual(['otp', 'mfa']);
  });

  it('refuses verify-mfa in any other state and merge-mfa in MfaRequired', async () => {
    const account = await createTotpAccount(t.ctx);
    const browser = t.agent();
    const started = await start(browser, account.email);
    const early = await verifyMfa(browser, started.body.session_id, await codeAt(t.ctx, account.secrets[0]!));
    expect([early.status, errorType(early)]).toEqual([409, 'invalid_login_session_state']);
    const mfa = await passwordStep(browser, account.email);
    const merge = await browser.post('/auth/login/merge-mfa').send({ session_id: mfa.body.session_id, totp_code: await codeAt(t.ctx, account.secrets[0]!) });
    expect([merge.status, errorType(merge)]).toEqual([409, 'invalid_login_session_state']);
  });

  it('needs the login cookie of the browser that started the sign-in', async () => {
    const account = await createTotpAccount(t.ctx);
    const mfa = await passwordStep(t.agent(), account.email);
    const res = await verifyMfa(t.agent(), mfa.body.session_id, await codeAt(t.ctx, account.secrets[0]!));
    expect([res.status, errorType(res)]).toEqual([401, 'login_session_missing']);
  });
});
