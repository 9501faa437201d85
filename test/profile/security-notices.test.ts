import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { totpCodeAt } from '../../src/credentials/totp/totp.ts';
import { rateLimitsFor } from '../../src/http/rate-limit.ts';
import { listRememberedDevices } from '../../src/login/remembered-device.ts';
import { registry } from '../../src/observability/metrics.ts';
import { noticeRetrySeconds, retryFailedNotices, settleSecurityNotices, startNoticeRetries } from '../../src/profile/security-notice.ts';
import { createPersona, signIn as operatorSignIn } from '../admin/harness.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import type { ReceivedMail } from '../helpers/mail-server.ts';
import { authenticatorFor, registerPasskey } from '../passkeys/helpers.ts';
import { codeFrom, setCookies } from '../login/journey.ts';
import { codeAt, createTotpAccount, nextStep, password, passwordStep, signIn, verifyMfa, type TotpAccount, type TotpAccountOptions } from '../totp/helpers.ts';
import { locationOf, roundTrip } from '../upstream/journey.ts';
import { startUpstream, type TestUpstream } from '../upstream/upstream-provider.ts';

/**
 * Every change to how a person signs in is mailed to them, once, after it is made (ASVS V2.2.3):
 * a passkey or authenticator planted with a stolen session does not go unnoticed. The remembered
 * browsers of the TOTP step are audited when one is remembered and when all are forgotten.
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

type Browser = ReturnType<TestApp['agent']>;
const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';

/** A browser that signed in just now (password, then the authenticator's code when enrolled). */
async function signedIn(options: TotpAccountOptions = {}, userAgent = firefox): Promise<{ account: TotpAccount; browser: Browser }> {
  const account = await createTotpAccount(t.ctx, options);
  const browser = t.agent().set('User-Agent', userAgent);
  await signIn(t.ctx, browser, account);
  return { account, browser };
}

/** Sets up and activates a new authenticator from the profile. */
async function enrol(browser: Browser): Promise<void> {
  const { secret } = (await browser.get('/auth/tfa/setup')).body as { secret: string };
  const res = await browser.post('/auth/tfa/activate').send({ totp_code: await totpCodeAt(secret, t.ctx.now()) });
  expect(res.status).toBe(200);
}

/**
 * Another browser signs in with the code and "remember this device"; answers it and the id in its
 * `nyckel_device` cookie. In the next time step: a code is accepted once.
 */
async function rememberBrowser(account: TotpAccount, userAgent = 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) Version/18.0 Mobile/15E148 Safari/604.1') {
  nextStep(t.ctx);
  const phone = t.agent().set('User-Agent', userAgent);
  const mfa = await passwordStep(phone, account.email);
  const done = await verifyMfa(phone, mfa.body.session_id, await codeAt(t.ctx, account.secrets[0]!), true);
  expect(done.body.state).toBe('Done');
  const cookie = /^nyckel_device=s%3A([^.;]+)\./.exec(setCookies(done).get('nyckel_device') ?? '')?.[1];
  expect(cookie).toBeTruthy();
  return { phone, cookieId: decodeURIComponent(cookie!) };
}

/**
 * The mail to the address once the notices under way went out: a notice is mailed after the
 * change is answered (notifySecurityChange).
 */
async function mailsTo(email: string): Promise<ReceivedMail[]> {
  await settleSecurityNotices();
  return t.mail.to(email);
}

/** The one notice to the address: nothing else was mailed to it. */
async function onlyMail(email: string): Promise<ReceivedMail> {
  const mails = await mailsTo(email);
  expect(mails.map((m) => m.subject)).toHaveLength(1);
  return mails[0]!;
}

const credentialIds = (accountId: string, type: string) => t.ctx.db('credentials').where({ account_id: accountId, type }).pluck('id');
const auditOf = (accountId: string, action: string) =>
  t.ctx.db('audit_events').where({ target_account_id: accountId, action }).orderBy('id').select('actor_id', 'ip', 'user_agent', 'details');

describe('security notices from the profile', () => {
  it('a password created at the ask-to-create-credential step of a sign-in', async () => {
    const account = await createTotpAccount(t.ctx, { password: false, totp: 0 });
    const browser = t.agent();
    const started = await browser.post('/auth/login/start').send({ email: account.email });
    expect(started.body.state).toBe('OTPRequired');
    const otp = codeFrom(await t.mail.waitFor(account.email));
    const asked = await browser.post('/auth/login/verify-otp').send({ session_id: started.body.session_id, email: account.email, otp });
    expect(asked.body.state).toBe('AskedCreateCredential');
    const created = await browser.post('/auth/login/create-password').send({ session_id: asked.body.session_id, password: 'Brand-New-Secret-42' });
    expect(created.body.state).toBe('Done');
    expect((await mailsTo(account.email)).map((m) => m.subject)).toEqual(['Your sign-in code', 'A password was added to your account']);
  });

  it('a passkey added: what, when, in which browser and from where, what to do; no link', async () => {
    const { account, browser } = await signedIn({ totp: 1 });
    const { res } = await registerPasskey(browser, authenticatorFor(t), { name: 'Work laptop' });
    expect(res.status).toBe(201);

    const mail = await onlyMail(account.email);
    expect(mail.subject).toBe('A passkey was added to your account');
    expect(mail.text).toContain('A passkey was just added to your account.');
    expect(mail.text).toMatch(/This happened on \d{1,2} \w+ \d{4} at \d{2}:\d{2} UTC in Firefox on Linux from the IP address [\d.:a-f]+\./);
    expect(mail.text).toContain('reset your password at once');
    expect(mail.text).toContain('contact your administrator');
    expect(mail.text).not.toMatch(/https?:\/\//);
    expect(mail.html).not.toContain('<a ');
    // The passkey's name is the person's own text: not repeated back into a mail.
    expect(mail.text).not.toContain('Work laptop');
  });

  it('a passkey removed', async () => {
    const { account, browser } = await signedIn({ totp: 1 });
    const { res } = await registerPasskey(browser, authenticatorFor(t));
    expect((await browser.delete(`/auth/passkeys/${res.body.id}`)).status).toBe(204);
    expect((await mailsTo(account.email)).map((m) => m.subject)).toEqual(['A passkey was added to your account', 'A passkey was removed from your account']);
  });

  it('an authenticator app turned on', async () => {
    const { account, browser } = await signedIn({ totp: 0 });
    await enrol(browser);
    expect((await onlyMail(account.email)).subject).toBe('An authenticator app was turned on for your account');
    // There was nothing remembered to forget: no devices.revoked_all row.
    expect(await auditOf(account.id, 'devices.revoked_all')).toEqual([]);
  });

  it('an authenticator app replaced (Re-register): one notice, and the remembered browsers are forgotten, audited with their count', async () => {
    const { account, browser } = await signedIn({ totp: 1 });
    await rememberBrowser(account);
    expect(await listRememberedDevices(t.ctx, account.id, undefined)).toHaveLength(1);
    await enrol(browser);

    expect(await listRememberedDevices(t.ctx, account.id, undefined)).toEqual([]);
    const mail = await onlyMail(account.email);
    expect(mail.subject).toBe('Your authenticator app was replaced');
    expect(await auditOf(account.id, 'devices.revoked_all')).toEqual([
      { actor_id: account.id, ip: expect.any(String), user_agent: firefox, details: { count: 1, reason: 'totp_replaced' } },
    ]);
  });

  it('an authenticator app removed: one notice, the remembered browsers forgotten and audited', async () => {
    const { account, browser } = await signedIn({ totp: 1 });
    await rememberBrowser(account);
    await rememberBrowser(account, 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/140.0 Safari/537.36 Edg/140.0');
    expect((await browser.delete(`/oauth2/userinfo/credentials/${account.totpIds[0]}`)).status).toBe(204);

    expect((await onlyMail(account.email)).subject).toBe('Your authenticator app was removed');
    expect(await auditOf(account.id, 'devices.revoked_all')).toEqual([
      { actor_id: account.id, ip: expect.any(String), user_agent: firefox, details: { count: 2, reason: 'totp_removed' } },
    ]);
  });

  it('authenticator apps merged while signing in (one kept, the others removed): one notice, in the sign-in\'s browser', async () => {
    const account = await createTotpAccount(t.ctx, { totp: 2 });
    const browser = t.agent().set('User-Agent', firefox);
    const asked = await passwordStep(browser, account.email, 'TOTPResetRequired');
    const merged = await browser.post('/auth/login/merge-mfa').send({ session_id: asked.body.session_id, totp_code: await codeAt(t.ctx, account.secrets[1]!) });
    expect(merged.body.state).toBe('Done');
    expect(await credentialIds(account.id, 'totp')).toEqual([account.totpIds[1]]);

    const mail = await onlyMail(account.email);
    expect(mail.subject).toBe('Authenticator apps were removed from your account');
    expect(mail.text).toContain('The other authenticator apps were removed from your account');
    expect(mail.text).toContain('in Firefox on Linux');
  });

  it('another sign-in method removed names its type', async () => {
    const { account, browser } = await signedIn({ totp: 0, oidc: ['accounts.google.com'] });
    const [oidc] = await credentialIds(account.id, 'oidc');
    expect((await browser.delete(`/oauth2/userinfo/credentials/${oidc}`)).status).toBe(204);
    const mail = await onlyMail(account.email);
    expect(mail.subject).toBe('A sign-in method was removed from your account');
    expect(mail.text).toContain('A sign-in method was just removed from your account: sign-in with Google or Microsoft.');
  });

  it('a Google account linked from the profile', async () => {
    const { account, browser } = await signedIn({ totp: 0 });
    const res = await roundTrip(browser, google, '/auth/link/oauth/google?from=%2Fprofile', { account: { sub: `notice-${Date.now()}` } });
    expect(locationOf(res)).toBe('/profile?linked=google');
    const mail = await onlyMail(account.email);
    expect(mail.subject).toBe('Sign-in with Google was linked to your account');
    expect(mail.text).toContain('Your account was just linked to a Google account, which can now be used to sign in.');
  });

  it('in the account’s language, whatever the browser asks for', async () => {
    const { account, browser } = await signedIn({ totp: 0 });
    await t.ctx.db('accounts').where({ id: account.id }).update({ locale: 'sv' });
    const { secret } = (await browser.get('/auth/tfa/setup')).body as { secret: string };
    const res = await browser.post('/auth/tfa/activate').set('Accept-Language', 'en-GB,en').send({ totp_code: await totpCodeAt(secret, t.ctx.now()) });
    expect(res.status).toBe(200);

    const mail = await onlyMail(account.email);
    expect(mail.subject).toBe('En autentiseringsapp har slagits på för ditt konto');
    expect(mail.text).toMatch(/Det hände den \d{1,2} \w+ \d{4} kl\. \d{2}:\d{2} \(svensk tid\) i Firefox på Linux från IP-adressen /);
    expect(mail.text).toContain('återställ lösenordet direkt');
    expect(mail.html).toContain('lang="sv"');
  });

  it('a password changed from the profile: in the account’s chosen language, whatever the browser asks for', async () => {
    const { account, browser } = await signedIn({ totp: 0 });
    await t.ctx.db('accounts').where({ id: account.id }).update({ locale: 'sv' });
    const res = await browser.post('/api/accounts/password').set('Accept-Language', 'en-GB,en').send({ current_password: password, new_password: 'Brand-New-Secret-42' });
    expect(res.status).toBe(200);

    const mail = await onlyMail(account.email);
    expect(mail.subject).toBe('Ditt lösenord har bytts');
    expect(mail.text).toContain('Lösenordet till ditt konto har just bytts. Det gamla lösenordet fungerar inte längre.');
    expect(mail.text).toMatch(/Det hände den \d{1,2} \w+ \d{4} kl\. \d{2}:\d{2} \(svensk tid\) i Firefox på Linux från IP-adressen /);
    expect(mail.text).toContain('återställ lösenordet direkt');
  });

  it('a password changed by someone who never chose a language: English, as every notice, not the request’s language', async () => {
    const { account, browser } = await signedIn({ totp: 0 });
    expect((await t.ctx.db('accounts').where({ id: account.id }).first('locale')).locale).toBeNull();
    const res = await browser.post('/api/accounts/password').set('Accept-Language', 'sv-SE,sv').send({ current_password: password, new_password: 'Brand-New-Secret-42' });
    expect(res.status).toBe(200);

    const mail = await onlyMail(account.email);
    expect(mail.subject).toBe('Your password was changed');
    expect(mail.text).toContain('The password of your account was just changed. The old password no longer works.');
    expect(mail.text).toMatch(/This happened on .* UTC in Firefox on Linux from the IP address /);
  });

  it('is not held back by a spent mail budget: whoever spends it cannot silence the notice of their own change', async () => {
    const { account, browser } = await signedIn({ totp: 0 });
    const limits = rateLimitsFor(t.ctx);
    let spent = 0;
    try {
      for (; spent < 20; spent += 1) await limits.consume('mail', account.email);
    } catch (error) {
      expect(error).toMatchObject({ type: 'too_many_requests' });
    }
    expect(spent).toBeLessThan(20);
    await enrol(browser);
    expect((await onlyMail(account.email)).subject).toBe('An authenticator app was turned on for your account');
  });

  it('a browser named by an unusual User-Agent is left out; the header’s own text never reaches the mail', async () => {
    const injected = 'Call +1 555 0100 now to secure your account';
    const { account, browser } = await signedIn({ totp: 0 }, injected);
    await enrol(browser);
    const mail = await onlyMail(account.email);
    expect(mail.text).not.toContain('555');
    expect(mail.text).toMatch(/UTC from the IP address /);
  });
});

describe('a notice when support deletes a credential in the console', () => {
  it('names what was removed, never the operator or where they were', async () => {
    const operator = await createPersona(t.ctx, { role: 'admin', totp: true });
    const admin = await operatorSignIn(t, operator);
    const { account } = await signedIn({ totp: 1 });
    await rememberBrowser(account);

    const res = await admin.delete(`/api/accounts/${account.id}/credentials/${account.totpIds[0]}`);
    expect(res.status).toBe(204);

    const mail = await onlyMail(account.email);
    expect(mail.subject).toBe('Support removed a sign-in method from your account');
    expect(mail.text).toContain('Support just removed a sign-in method from your account: the authenticator app.');
    expect(mail.text).toContain('If you did not ask for this, contact your administrator.');
    expect(mail.text).not.toContain(operator.email);
    expect(mail.text).not.toContain('IP address');
    expect(await mailsTo(operator.email)).toEqual([]);
    expect(await auditOf(account.id, 'devices.revoked_all')).toMatchObject([{ actor_id: operator.id, details: { count: 1, reason: 'operator_totp_deleted' } }]);
    expect(mail.text).toContain('Every browser and application signed in to your account was signed out.');
  });

  it('support signing the account out everywhere, and unlocking it, are mailed too, in the account’s language', async () => {
    const operator = await createPersona(t.ctx, { role: 'support', totp: true });
    const support = await operatorSignIn(t, operator);
    const { account } = await signedIn({ totp: 0 });
    await t.ctx.db('accounts').where({ id: account.id }).update({ locale: 'sv' });

    expect((await support.post(`/api/accounts/${account.id}/sign-out-everywhere`)).status).toBe(200);
    const signedOut = await onlyMail(account.email);
    expect(signedOut.subject).toBe('Support har loggat ut ditt konto överallt');
    expect(signedOut.text).toContain('Support har just loggat ut ditt konto från alla webbläsare och program.');
    expect(signedOut.text).toContain('Om du inte bad om det, kontakta din administratör.');

    // Locked (an unlock with no lock in force is refused and mails nothing).
    await t.ctx.db('accounts').where({ id: account.id }).update({ locale: 'en', locked_until: new Date(t.ctx.now().getTime() + 60_000) });
    expect((await support.post(`/api/accounts/${account.id}/unlock`)).status).toBe(200);
    const mails = await mailsTo(account.email);
    expect(mails.map((m) => m.subject)).toEqual(['Support har loggat ut ditt konto överallt', 'Support unlocked sign-in to your account']);
    expect(mails[1]!.text).toContain('Support just lifted the lock that failed sign-in attempts had put on your account: you can sign in again.');
    for (const mail of mails) {
      expect(mail.text).not.toContain(operator.email);
      expect(mail.text).not.toContain('IP address');
    }
    expect(await mailsTo(operator.email)).toEqual([]);
  });
});

describe('audit of remembered browsers', () => {
  it('device.remembered only with "remember this device": the public id, the browser and address, never the cookie', async () => {
    const account = await createTotpAccount(t.ctx);
    await signIn(t.ctx, t.agent(), account);
    expect(await auditOf(account.id, 'device.remembered')).toEqual([]);

    const { phone, cookieId } = await rememberBrowser(account);
    const { devices } = (await phone.get('/auth/tfa/devices')).body as { devices: { id: string }[] };
    expect(devices).toHaveLength(1);
    expect(await auditOf(account.id, 'device.remembered')).toEqual([
      {
        actor_id: account.id,
        ip: expect.stringMatching(/127\.0\.0\.1/),
        user_agent: expect.stringContaining('iPhone'),
        details: { device_id: devices[0]!.id },
      },
    ]);
    const rows = await t.ctx.db('audit_events').where({ target_account_id: account.id });
    expect(JSON.stringify(rows)).not.toContain(cookieId);
  });
});

/** An SMTP URL on a loopback port nothing listens on: every send is refused. */
async function refusedSmtpUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `smtp://127.0.0.1:${port}`;
}

describe('when the mail server is down', () => {
  let down: TestApp;
  beforeAll(async () => {
    down = await startTestApp({ env: { SMTP_URL: await refusedSmtpUrl() } });
  });
  afterAll(async () => {
    await down?.close();
  });

  /** The changes whose notice failed, as logged; never the address. */
  function failedNotices(error: ReturnType<typeof vi.spyOn>): string[] {
    const calls = error.mock.calls as [Record<string, unknown>, string][];
    const failed = calls.filter(([, msg]) => msg === 'security notice mail failed');
    for (const [fields] of failed) expect(JSON.stringify(fields)).not.toContain('@');
    return failed.map(([fields]) => fields.change as string);
  }

  it('the change is made and answered as usual: the notice failing is only logged', async () => {
    const error = vi.spyOn(down.ctx.logger, 'error');
    const account = await createTotpAccount(down.ctx, { totp: 1 });
    const browser = down.agent();
    await signIn(down.ctx, browser, account);

    const { res } = await registerPasskey(browser, authenticatorFor(down));
    expect(res.status).toBe(201);
    const removed = await browser.delete(`/auth/passkeys/${res.body.id}`);
    expect(removed.status).toBe(204);
    expect(await down.ctx.db('credentials').where({ account_id: account.id, type: 'webauthn' })).toEqual([]);

    const { secret } = (await browser.get('/auth/tfa/setup')).body as { secret: string };
    const replaced = await browser.post('/auth/tfa/activate').send({ totp_code: await totpCodeAt(secret, down.ctx.now()) });
    expect(replaced.status).toBe(200);
    expect(await down.ctx.db('credentials').where({ account_id: account.id, type: 'totp' }).pluck('id')).toEqual([replaced.body.id]);
    await settleSecurityNotices();
    expect(failedNotices(error)).toEqual(['passkey_registered', 'passkey_removed', 'totp_replaced']);
    error.mockRestore();
    // Each kept for another try, with what its mail will say.
    const kept = await retriesOf(account.id);
    expect(kept.map((row) => [row.notice.change, row.attempts])).toEqual([
      ['passkey_registered', 1],
      ['passkey_removed', 1],
      ['totp_replaced', 1],
    ]);
    // The first retry is due a minute after the first try failed.
    const firstRetry = noticeRetrySeconds[0] * 1000;
    for (const row of kept) {
      expect(row.next_attempt_at.getTime()).toBeGreaterThanOrEqual(row.created_at.getTime() + firstRetry);
      expect(row.next_attempt_at.getTime()).toBeLessThanOrEqual(down.ctx.now().getTime() + firstRetry);
    }
  });

  it('a password change is answered as usual; its notice is kept and mailed once the mail server is back', async () => {
    const account = await createTotpAccount(down.ctx, { totp: 0 });
    const browser = down.agent();
    await signIn(down.ctx, browser, account);
    const res = await browser.post('/api/accounts/password').send({ current_password: password, new_password: 'Brand-New-Secret-42' });
    expect(res.body).toEqual({ signed_out: 0 });
    await settleSecurityNotices();
    expect((await retriesOf(account.id)).map((row) => [row.notice.change, row.attempts])).toEqual([['password_changed', 1]]);

    down.ctx.advance(noticeRetrySeconds[0] * 1000);
    expect((await retryFailedNotices({ ...down.ctx, mailer: t.ctx.mailer })).sent).toBeGreaterThanOrEqual(1);
    expect((await t.mail.waitFor(account.email)).subject).toBe('Your password was changed');
    expect(await retriesOf(account.id)).toEqual([]);
  });

  /**
   * A passkey added on an app whose mail server takes the connection and never greets (the mailer
   * waits up to its greeting timeout); `rest` goes on once the notice's mail is at that server.
   * Destroying the sockets makes the try fail.
   */
  async function withSilentMailServer(rest: (hanging: TestApp, account: TotpAccount, sockets: Socket[]) => Promise<void>) {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const hanging = await startTestApp({ env: { SMTP_URL: `smtp://127.0.0.1:${(silent.address() as { port: number }).port}` } });
    try {
      const account = await createTotpAccount(hanging.ctx, { totp: 0 });
      const browser = hanging.agent();
      await signIn(hanging.ctx, browser, account);
      expect((await registerPasskey(browser, authenticatorFor(hanging))).res.status).toBe(201);
      // Answered, while the notice's mail is still at the silent server.
      await vi.waitFor(() => expect(sockets).toHaveLength(1));
      await rest(hanging, account, sockets);
    } finally {
      for (const socket of sockets) socket.destroy();
      await hanging.close();
      await new Promise((resolve) => silent.close(resolve));
    }
  }

  it('answers the change while the mail server does not answer; the notice waits, claimed, and is kept for a retry when the try fails', async () => {
    await withSilentMailServer(async (hanging, account, sockets) => {
      const retries = () => hanging.ctx.db('security_notice_retries').where({ account_id: account.id }).select('attempts', 'next_attempt_at', 'created_at');
      // Kept, claimed for the sending process.
      const [claimed] = await retries();
      expect(claimed!.attempts).toBe(0);
      expect(claimed!.next_attempt_at.getTime()).toBeGreaterThanOrEqual(claimed!.created_at.getTime() + 600_000);
      // Another instance's retries leave it alone while it is claimed.
      expect(await retryFailedNotices({ ...hanging.ctx, mailer: t.ctx.mailer })).toEqual({ sent: 0, failed: 0, givenUp: 0 });
      // The silent server hangs up: the try fails, and the notice waits its first retry.
      for (const socket of sockets) socket.destroy();
      await settleSecurityNotices();
      expect((await retries()).map((row) => row.attempts)).toEqual([1]);
      expect(t.mail.to(account.email)).toEqual([]);
    });
  });

  it('mails a notice whose sender stopped before its mail went out, once the claim lapses', async () => {
    await withSilentMailServer(async (hanging, account, sockets) => {
      // As if this process had stopped: its claim lapses, and a process that can mail takes the notice.
      hanging.ctx.advance(600_000);
      const back = { ...hanging.ctx, mailer: t.ctx.mailer };
      expect(await retryFailedNotices(back)).toEqual({ sent: 1, failed: 0, givenUp: 0 });
      expect((await t.mail.waitFor(account.email)).subject).toBe('A passkey was added to your account');
      expect(await hanging.ctx.db('security_notice_retries').where({ account_id: account.id })).toEqual([]);
      // The first try failing afterwards finds nothing left to keep.
      const kept = (await delayedNotices()).kept;
      for (const socket of sockets) socket.destroy();
      await settleSecurityNotices();
      expect(await hanging.ctx.db('security_notice_retries').where({ account_id: account.id })).toEqual([]);
      expect((await delayedNotices()).kept).toBe(kept);
    });
  });

  /** nyckel_security_notices_delayed_total by outcome. */
  async function delayedNotices(): Promise<Record<'kept' | 'sent_late' | 'given_up', number>> {
    const { values } = await registry.getSingleMetric('nyckel_security_notices_delayed_total')!.get();
    const of = (outcome: string) => values.find((value) => value.labels.outcome === outcome)?.value ?? 0;
    return { kept: of('kept'), sent_late: of('sent_late'), given_up: of('given_up') };
  }

  /** The notices of the account waiting for another try, oldest first. */
  const retriesOf = (accountId: string) =>
    down.ctx.db('security_notice_retries').where({ account_id: accountId }).orderBy('id').select('notice', 'attempts', 'next_attempt_at', 'created_at');

  /** A passkey added while the mail server is down: its notice is kept. Answers the account and the time of the change. */
  async function keptNotice() {
    const account = await createTotpAccount(down.ctx, { totp: 0 });
    const browser = down.agent().set('User-Agent', firefox);
    await signIn(down.ctx, browser, account);
    const changedAt = down.ctx.now();
    expect((await registerPasskey(browser, authenticatorFor(down))).res.status).toBe(201);
    await settleSecurityNotices();
    expect(await retriesOf(account.id)).toHaveLength(1);
    return { account, changedAt };
  }

  it('mails a kept notice once the mail server is back and it is due, with the time of the change, then forgets it', async () => {
    const { account, changedAt } = await keptNotice();
    // The mail server is back: the same database, a mailer that reaches t's mail server.
    const back = { ...down.ctx, mailer: t.ctx.mailer };
    expect(await retryFailedNotices(back)).toEqual({ sent: 0, failed: 0, givenUp: 0 });
    expect(t.mail.to(account.email)).toEqual([]);

    down.ctx.advance(noticeRetrySeconds[0] * 1000);
    // Two instances at once: each kept notice (the earlier test's too) is claimed by one and mailed once.
    const kept = Number((await down.ctx.db('security_notice_retries').count({ n: '*' }).first())!.n);
    expect(kept).toBeGreaterThanOrEqual(1);
    const [first, second] = await Promise.all([retryFailedNotices(back), retryFailedNotices(back)]);
    expect(first.sent + second.sent).toBe(kept);
    expect(first.failed + second.failed + first.givenUp + second.givenUp).toBe(0);
    const mail = await t.mail.waitFor(account.email);
    expect(mail.subject).toBe('A passkey was added to your account');
    const when = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(changedAt);
    expect(mail.text).toContain(when);
    expect(mail.text).toContain('Firefox');
    expect(await retriesOf(account.id)).toEqual([]);
    expect(await retryFailedNotices(back)).toEqual({ sent: 0, failed: 0, givenUp: 0 });
    expect(t.mail.to(account.email)).toHaveLength(1);
  });

  it('tries a notice that keeps failing on the schedule, then gives it up, logged without the address', async () => {
    const { account } = await keptNotice();
    const givenUpBefore = (await delayedNotices()).given_up;
    const warn = vi.spyOn(down.ctx.logger, 'warn');
    const error = vi.spyOn(down.ctx.logger, 'error');
    for (const [index, seconds] of noticeRetrySeconds.entries()) {
      // Not before it is due.
      down.ctx.advance(seconds * 1000 - 1000);
      expect(await retryFailedNotices(down.ctx)).toMatchObject({ failed: 0, givenUp: 0 });
      down.ctx.advance(1000);
      const outcome = await retryFailedNotices(down.ctx);
      if (index < noticeRetrySeconds.length - 1) {
        expect(outcome).toMatchObject({ failed: 1, givenUp: 0 });
        expect((await retriesOf(account.id)).map((row) => row.attempts)).toEqual([index + 2]);
      } else {
        expect(outcome).toMatchObject({ failed: 0, givenUp: 1 });
      }
    }
    expect(await retriesOf(account.id)).toEqual([]);
    expect((await delayedNotices()).given_up).toBe(givenUpBefore + 1);
    const logged = [...warn.mock.calls, ...error.mock.calls] as [Record<string, unknown>, string][];
    expect(logged.filter(([, msg]) => msg === 'security notice mail failed again')).toHaveLength(noticeRetrySeconds.length - 1);
    const givenUp = logged.filter(([, msg]) => msg === 'security notice given up');
    expect(givenUp.map(([fields]) => [fields.change, fields.attempts])).toEqual([['passkey_registered', noticeRetrySeconds.length + 1]]);
    for (const [fields] of logged) expect(JSON.stringify(fields)).not.toContain('@');
    warn.mockRestore();
    error.mockRestore();
  });

  it('the server’s loop mails kept notices when they are due, and counts them in the metrics', async () => {
    const before = await delayedNotices();
    const { account } = await keptNotice();
    expect((await delayedNotices()).kept).toBe(before.kept + 1);
    down.ctx.advance(noticeRetrySeconds[0] * 1000);
    const stop = startNoticeRetries({ ...down.ctx, mailer: t.ctx.mailer }, 20);
    try {
      expect((await t.mail.waitFor(account.email)).subject).toBe('A passkey was added to your account');
      await vi.waitFor(async () => expect(await retriesOf(account.id)).toEqual([]));
    } finally {
      stop();
    }
    expect((await delayedNotices()).sent_late).toBeGreaterThanOrEqual(before.sent_late + 1);
  });

  it('gives a notice up at once when the mail server refuses the address for good: a day of retries would not help', async () => {
    const before = await delayedNotices();
    const account = await createTotpAccount(t.ctx, { totp: 0 });
    const browser = t.agent();
    await signIn(t.ctx, browser, account);
    t.mail.refuse(account.email, 'permanent');
    try {
      expect((await registerPasskey(browser, authenticatorFor(t))).res.status).toBe(201);
      await settleSecurityNotices();
      expect(await t.ctx.db('security_notice_retries').where({ account_id: account.id })).toEqual([]);
      expect(await delayedNotices()).toEqual({ ...before, given_up: before.given_up + 1 });
      expect(t.mail.to(account.email)).toEqual([]);
    } finally {
      t.mail.refuse(account.email, null);
    }
  });

  it('forgets a kept notice with its account', async () => {
    const { account } = await keptNotice();
    await down.ctx.db('accounts').where({ id: account.id }).delete();
    expect(await down.ctx.db('security_notice_retries').where({ account_id: account.id })).toEqual([]);
  });

  it('the console’s deletion answers 204', async () => {
    const admin = await operatorSignIn(down, await createPersona(down.ctx, { role: 'admin', totp: true }));
    const account = await createTotpAccount(down.ctx, { totp: 1 });
    const error = vi.spyOn(down.ctx.logger, 'error');
    expect((await admin.delete(`/api/accounts/${account.id}/credentials/${account.totpIds[0]}`)).status).toBe(204);
    expect(await down.ctx.db('credentials').where({ account_id: account.id, type: 'totp' })).toEqual([]);
    await settleSecurityNotices();
    expect(failedNotices(error)).toEqual(['operator_credential_removed']);
    error.mockRestore();
  });
});
