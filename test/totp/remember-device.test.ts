import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetKnownBrowsers, guesserFor } from '../../src/login/lockout.ts';
import { listRememberedDevices } from '../../src/login/remembered-device.ts';
import { listPortalSessions } from '../../src/session/portal-session.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { errorType, setCookies } from '../login/journey.ts';
import { codeAt, createTotpAccount, nextStep, password, passwordStep, signIn, verifyMfa, type TotpAccount } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

type Browser = ReturnType<TestApp['agent']>;

/** Password, then the code with "remember this device" ticked. */
async function signInRemembering(browser: Browser, account: TotpAccount) {
  const mfa = await passwordStep(browser, account.email);
  const done = await verifyMfa(browser, mfa.body.session_id, await codeAt(t.ctx, account.secrets[0]!), true);
  expect(done.body.state).toBe('Done');
  return done;
}

describe('remember this device', () => {
  it('sets a signed HttpOnly cookie for /auth valid REMEMBER_DEVICE_DAYS; the next sign-in skips the code', async () => {
    const account = await createTotpAccount(t.ctx);
    const browser = t.agent().set('User-Agent', 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0');
    const done = await signInRemembering(browser, account);
    const cookie = setCookies(done).get('nyckel_device');
    expect(cookie).toMatch(/^nyckel_device=s%3A/); // signed
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\/auth;/);
    expect(cookie).toMatch(/Max-Age=2592000/); // 30 days
    expect(cookie).not.toMatch(/Secure/); // loopback issuer over http

    t.ctx.advance(60_000);
    const again = await passwordStep(browser, account.email, 'Done');
    expect(again.body.redirect_to).toBe('/login/select-tenant');
    // This sign-in proved the password only: no 'mfa' in its amr (acr loa:1).
    const sessions = await listPortalSessions(t.ctx, account.id);
    expect(sessions.map((s) => s.amr)).toEqual([['pwd']]);
    const audit = await t.ctx.db('audit_events').where({ target_account_id: account.id, action: 'login.succeeded' }).orderBy('id');
    expect(audit.map((a) => a.details.remembered_device ?? false)).toEqual([false, true]);

    const { devices } = (await browser.get('/auth/tfa/devices')).body;
    expect(devices).toHaveLength(1);
    expect(devices[0]).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0',
      created_at: expect.any(String),
      last_used_at: expect.any(String),
      current: true,
    });
    expect(Date.parse(devices[0].last_used_at) - Date.parse(devices[0].created_at)).toBeGreaterThanOrEqual(60_000);
    expect(decodeURIComponent(cookie!)).not.toContain(devices[0].id);
  });

  it('does not skip the code when the page asks for a second factor (/login?second_factor=1), and stays remembered', async () => {
    const account = await createTotpAccount(t.ctx);
    const browser = t.agent();
    await signInRemembering(browser, account);
    nextStep(t.ctx);

    const started = await browser.post('/auth/login/start?second_factor=1').send({ email: account.email });
    expect(started.body.state).toBe('CredentialsRequired');
    const asked = await browser.post('/auth/login/verify-password').send({ session_id: started.body.session_id, email: account.email, password: 'Correct-Horse-9' });
    expect(asked.body.state).toBe('MfaRequired');
    const done = await verifyMfa(browser, asked.body.session_id, await codeAt(t.ctx, account.secrets[0]!));
    expect(done.body.state).toBe('Done');
    expect((await listPortalSessions(t.ctx, account.id)).map((s) => s.amr)).toEqual([['pwd', 'otp', 'mfa']]);

    // The browser is still remembered: without the flag the code is skipped again.
    expect((await passwordStep(browser, account.email, 'Done')).body.redirect_to).toBe('/login/select-tenant');
  });

  it('is not set without "remember"', async () => {
    const account = await createTotpAccount(t.ctx);
    const browser = t.agent();
    const mfa = await passwordStep(browser, account.email);
    const done = await verifyMfa(browser, mfa.body.session_id, await codeAt(t.ctx, account.secrets[0]!), false);
    expect(setCookies(done).has('nyckel_device')).toBe(false);
    expect((await passwordStep(browser, account.email)).body.state).toBe('MfaRequired');
  });

  it('never skips the code for another account signing in on the same browser', async () => {
    const alice = await createTotpAccount(t.ctx);
    const bob = await createTotpAccount(t.ctx);
    const browser = t.agent();
    await signInRemembering(browser, alice);
    const res = await passwordStep(browser, bob.email);
    expect(res.body).toMatchObject({ state: 'MfaRequired', allow_totp_remember: true });
  });

  it('no longer skips the code once revoked from the profile', async () => {
    const account = await createTotpAccount(t.ctx);
    const browser = t.agent();
    await signInRemembering(browser, account);
    const { devices } = (await browser.get('/auth/tfa/devices')).body;
    const revoked = await browser.delete(`/auth/tfa/devices/${devices[0].id}`);
    expect(revoked.status).toBe(204);
    expect((await browser.get('/auth/tfa/devices')).body).toEqual({ devices: [] });
    const audit = await t.ctx.db('audit_events').where({ target_account_id: account.id, action: 'device.revoked' });
    expect(audit).toHaveLength(1);
    expect((await passwordStep(browser, account.email)).body.state).toBe('MfaRequired');
  });

  it('lists only one’s own devices; another person’s device id is 404 and stays', async () => {
    const alice = await createTotpAccount(t.ctx);
    const bob = await createTotpAccount(t.ctx);
    const aliceBrowser = t.agent();
    const bobBrowser = t.agent();
    await signInRemembering(aliceBrowser, alice);
    await signInRemembering(bobBrowser, bob);
    const aliceDevice = (await aliceBrowser.get('/auth/tfa/devices')).body.devices[0].id;
    const bobDevices = (await bobBrowser.get('/auth/tfa/devices')).body.devices;
    expect(bobDevices.map((d: { id: string }) => d.id)).not.toContain(aliceDevice);

    const res = await bobBrowser.delete(`/auth/tfa/devices/${aliceDevice}`);
    expect([res.status, errorType(res)]).toEqual([404, 'not_found']);
    expect((await bobBrowser.delete('/auth/tfa/devices/nonsense')).status).toBe(404);
    nextStep(t.ctx);
    expect((await passwordStep(aliceBrowser, alice.email, 'Done')).body.state).toBe('Done');
  });

  it('marks only the browser’s own device as current', async () => {
    const account = await createTotpAccount(t.ctx);
    const laptop = t.agent();
    const phone = t.agent();
    await signInRemembering(laptop, account);
    nextStep(t.ctx);
    await signInRemembering(phone, account);
    const { devices } = (await laptop.get('/auth/tfa/devices')).body;
    expect(devices).toHaveLength(2);
    expect(devices.filter((d: { current: boolean }) => d.current)).toHaveLength(1);
  });

  it('expires after REMEMBER_DEVICE_DAYS', async () => {
    const account = await createTotpAccount(t.ctx);
    const browser = t.agent();
    await signInRemembering(browser, account);
    t.ctx.advance(30 * 86_400_000 + 1000);
    expect((await passwordStep(browser, account.email)).body.state).toBe('MfaRequired');
  });

  it('does not skip choosing among several TOTP credentials', async () => {
    const account = await createTotpAccount(t.ctx);
    const browser = t.agent();
    await signInRemembering(browser, account);
    await t.ctx.db('credentials').insert({ account_id: account.id, type: 'totp', secret: t.ctx.secretBox.seal(account.secrets[0]!) });
    await passwordStep(browser, account.email, 'TOTPResetRequired');
  });

  it('needs a signed-in person to list or revoke', async () => {
    const list = await t.agent().get('/auth/tfa/devices');
    expect([list.status, errorType(list)]).toEqual([401, 'unauthorized']);
    const revoke = await t.agent().delete('/auth/tfa/devices/x');
    expect([revoke.status, errorType(revoke)]).toEqual([401, 'unauthorized']);
  });

  it('a signed-in person without devices gets an empty list', async () => {
    const account = await createTotpAccount(t.ctx, { totp: 0 });
    const browser = t.agent();
    await signIn(t.ctx, browser, account);
    expect((await browser.get('/auth/tfa/devices')).body).toEqual({ devices: [] });
  });
});

/**
 * Signing out everywhere else, and a password change that does, leave no other browser a shorter
 * way back in: a browser remembered for the code asks for it again, and a browser known to the
 * address counts its wrong passwords against the address again (lockout.ts).
 */
describe('signing out everywhere else', () => {
  /** Browser A remembered for the code (and known to the address); browser B signed in with the password and the code. */
  async function rememberedElsewhere() {
    const account = await createTotpAccount(t.ctx);
    const a = t.agent();
    const done = await signInRemembering(a, account);
    const known = decodeURIComponent(/^nyckel_known=([^;]+)/.exec(setCookies(done).get('nyckel_known') ?? '')![1]!);
    expect((await guesserFor(t.ctx, account.email, known)).lane?.kind).toBe('known_browser');
    nextStep(t.ctx);
    const b = t.agent();
    await signIn(t.ctx, b, account);
    return { account, a, b, known };
  }

  async function expectForgotten(account: TotpAccount, a: Browser, known: string, newPassword = password) {
    expect(await guesserFor(t.ctx, account.email, known)).toEqual({ email: account.email });
    await passwordStep(a, account.email, 'MfaRequired', { password: newPassword });
    expect(await listRememberedDevices(t.ctx, account.id, undefined)).toEqual([]);
    const devices = await t.ctx.db('audit_events').where({ target_account_id: account.id, action: 'devices.revoked_all' }).pluck('details');
    expect(devices).toEqual([{ count: 1, reason: 'signed_out_others' }]);
  }

  it('from the profile’s sessions: a remembered browser signing in again with the password is asked for the code', async () => {
    const { account, a, b, known } = await rememberedElsewhere();
    const res = await b.post('/api/accounts/sessions/sign-out-others').send({});
    expect(res.body).toEqual({ sessions: 1, applications: 0 });
    expect((await b.get('/auth/tfa/devices')).status).toBe(200);
    await expectForgotten(account, a, known);
  });

  it('by a password change with sign_out_others: the new password alone does not sign a remembered browser in', async () => {
    const { account, a, b, known } = await rememberedElsewhere();
    const newPassword = 'Brand-New-Secret-42';
    const res = await b.post('/api/accounts/password').send({ current_password: password, new_password: newPassword, sign_out_others: true });
    expect(res.body).toEqual({ signed_out: 1 });
    await expectForgotten(account, a, known, newPassword);
  });

  it('leaves the browser that asked known to the address: its known-browser cookie is renewed after the forgetting', async () => {
    const { account, b } = await rememberedElsewhere();
    const res = await b.post('/api/accounts/sessions/sign-out-others').send({});
    expect(res.body).toEqual({ sessions: 1, applications: 0 });
    const renewed = decodeURIComponent(/^nyckel_known=([^;]+)/.exec(setCookies(res).get('nyckel_known') ?? '')![1]!);
    const lane = (await guesserFor(t.ctx, account.email, renewed)).lane;
    expect(lane?.kind).toBe('known_browser');
    // The same lane as before: its failure count and budget go on, a renewal never restarts them.
    const before = await t.ctx.store.get(`lockout:${lane!.name}:failures`);
    expect(decodeURIComponent(/^nyckel_known=([^;]+)/.exec(setCookies(await b.post('/api/accounts/sessions/sign-out-others').send({})).get('nyckel_known') ?? '')![1]!).split('.')[0]).toBe(
      renewed.split('.')[0],
    );
    expect(await t.ctx.store.get(`lockout:${lane!.name}:failures`)).toBe(before);
  });

  it('renews no cookie for a browser without standing: its own cookie forgotten before, it gets none back', async () => {
    const { account, b } = await rememberedElsewhere();
    await forgetKnownBrowsers(t.ctx, account.email);
    nextStep(t.ctx);
    const res = await b.post('/api/accounts/sessions/sign-out-others').send({});
    expect(res.status).toBe(200);
    expect(setCookies(res).has('nyckel_known')).toBe(false);
  });
});
