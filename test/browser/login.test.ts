import type { Page, Route } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { newTotpSecret } from '../../src/credentials/totp/totp.ts';
import { assertNotLocked, lockoutPolicy, recordFailure } from '../../src/login/lockout.ts';
import { createAccount } from '../fixtures/accounts.ts';
import { wrongCode } from '../totp/helpers.ts';
import { failWhileOn, useBrowserHarness } from './harness.ts';
import { alertText, enterEmail, enterPassword, expectFocusOn, focused, openLogin, PASSWORD, people } from './login-steps.ts';
import { t } from './texts.ts';

/**
 * The sign-in journeys as a person does them: real app, real SMTP, real Chromium. Every check is
 * on what the page shows (texts from the portal's own i18n files) or where the browser is.
 */
const h = useBrowserHarness();

const { uniqueEmail, personWithTenant } = people(h);

async function expectTenantSelection(page: Page, email: string, tenant: { name: string; slug: string }) {
  await page.waitForURL((url) => url.pathname === '/login/select-tenant');
  await page.getByRole('heading', { name: t.en('tenants.title'), exact: true }).waitFor();
  await page.getByText(t.en('tenants.signed_in_as', { email }), { exact: true }).waitFor();
  const card = page.getByRole('link', { name: new RegExp(tenant.name) });
  await card.waitFor();
  expect(await card.innerText()).toContain(tenant.slug);
  expect(await page.locator('.tenant-card').count()).toBe(1);
}

/** A whole password sign-in from /login, ending on the tenant selection. */
async function signInToTenants(page: Page, email: string, password: string, tenant: { name: string; slug: string }) {
  await openLogin(page);
  await enterEmail(page, email);
  await enterPassword(page, password);
  await expectTenantSelection(page, email, tenant);
}

/** The six-digit code from the sign-in mail. */
function codeFrom(mail: { subject: string; text: string }): string {
  const code = /\b(\d{6})\b/.exec(mail.text)?.[1];
  expect(code, `a six-digit code in the mail "${mail.subject}"`).toBeDefined();
  return code!;
}

/** Requests a reset link for `email` on /login/reset-password and returns the link from the mail. */
async function requestResetLink(page: Page, email: string): Promise<string> {
  await page.goto('/login/reset-password');
  await page.getByLabel(t.en('login.start.email'), { exact: true }).fill(email);
  await page.getByRole('button', { name: t.en('reset.submit'), exact: true }).click();
  await page.getByRole('heading', { name: t.en('reset.sent_title'), exact: true }).waitFor();
  const mail = await h.mail.waitFor(email, (message) => message.text.includes('/login/set-password/'));
  return /https?:\/\/\S+\/login\/set-password\/[^\s"<>]+/.exec(mail.text)![0];
}

/** Holds the next request to `url` until the test lets it go on (or fail): answers the held route. */
function holdRequest(page: Page, url: string): Promise<Route> {
  return new Promise((resolve) => {
    void page.route(url, (route) => resolve(route), { times: 1 });
  });
}

/** On Start again (focused after a restart error), Enter returns to the email step, email kept. */
async function startAgain(page: Page, email: string) {
  await expectFocusOn(page, 'button', t.en('login.start_again'));
  await page.keyboard.press('Enter');
  await page.getByText(t.en('login.start.intro'), { exact: true }).waitFor();
  const emailField = page.getByLabel(t.en('login.start.email'), { exact: true });
  expect(await emailField.inputValue()).toBe(email);
  await expectFocusOn(page, 'input', t.en('login.start.email'));
}

describe('password sign-in', () => {
  it('signs in with email and password and lands on the tenant selection', async () => {
    const { page } = h;
    const { email, tenant } = await personWithTenant('alice', PASSWORD);

    await openLogin(page);
    await h.shot('login-en');
    await enterEmail(page, email);
    await page.getByText(t.en('login.signed_in_as', { email }), { exact: true }).waitFor();
    await enterPassword(page, PASSWORD);

    await expectTenantSelection(page, email, tenant);
    await h.shot('select-tenant');
  });

  it('shows "Invalid credentials" for a wrong password and keeps the password form', async () => {
    const { page } = h;
    const { email } = await personWithTenant('bob', PASSWORD);

    await openLogin(page);
    await enterEmail(page, email);
    await enterPassword(page, 'Wrong-Horse-42!');

    expect(await alertText(page)).toBe(t.en('errors.invalid_credentials'));
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.getByLabel(t.en('login.credentials.password'), { exact: true }).waitFor();
  });

  it('runs one sign-in at a time: the password waits for the passkey, the passkey for the password', async () => {
    const { page } = h;
    const { email, accountId } = await personWithTenant('petra', PASSWORD);
    // Only offers the passkey button (the ceremony itself is never reached: its options are held).
    await h.server.ctx.db('credentials').insert({ account_id: accountId, type: 'webauthn', subject: `passkey-${accountId}`, public_key: Buffer.from([1]) });
    const passwordField = page.getByLabel(t.en('login.credentials.password'), { exact: true });
    const passwordSubmit = page.getByRole('button', { name: t.en('login.credentials.submit'), exact: true });
    const passkeyButton = page.getByRole('button', { name: t.en('passkey.sign_in'), exact: true });

    await openLogin(page);
    await enterEmail(page, email);
    await passwordField.fill('Wrong-Horse-42!');
    const options = holdRequest(page, '**/auth/login/passkey/options');
    await passkeyButton.click();
    const heldOptions = await options;
    expect(await passwordSubmit.isDisabled()).toBe(true);
    expect(await passwordField.isDisabled()).toBe(true);
    // No answer: the passkey attempt fails, the form is back, and focus is where the person was.
    await heldOptions.abort('connectionfailed');
    expect(await alertText(page)).toBe(t.en('errors.network_error'));
    await expectFocusOn(page, 'button', t.en('passkey.sign_in'));
    expect(await passwordSubmit.isDisabled()).toBe(false);

    const verify = holdRequest(page, '**/auth/login/verify-password');
    await passwordSubmit.click();
    const heldVerify = await verify;
    expect(await passkeyButton.isDisabled()).toBe(true);
    await heldVerify.continue();
    await page.getByText(t.en('errors.invalid_credentials'), { exact: true }).waitFor();
    expect(await passkeyButton.isDisabled()).toBe(false);
  });
});

describe('email code sign-in', () => {
  async function reachCodeStep(page: Page, email: string): Promise<string> {
    await openLogin(page);
    await enterEmail(page, email);
    await page.getByRole('heading', { name: t.en('login.otp.title'), exact: true }).waitFor();
    await page.getByText(t.en('login.otp.body', { email }), { exact: true }).waitFor();
    return codeFrom(await h.mail.waitFor(email, (mail) => /\b\d{6}\b/.test(mail.text)));
  }

  const digitBox = (page: Page, n: number) => page.getByLabel(t.en('login.otp.digit', { n }), { exact: true });

  async function skipToTenants(page: Page, email: string, tenant: { name: string; slug: string }) {
    await page.getByRole('heading', { name: t.en('login.create_credential.title'), exact: true }).waitFor();
    await h.shot('create-credential');
    await page.getByRole('button', { name: t.en('login.create_credential.skip'), exact: true }).click();
    await expectTenantSelection(page, email, tenant);
  }

  it('typing the six digits submits by itself, then Skip leads to the tenants', async () => {
    const { page } = h;
    const { email, tenant } = await personWithTenant('carol');
    const code = await reachCodeStep(page, email);
    await h.shot('otp-step');

    // The first box has focus; each digit moves on to the next box.
    for (const digit of code.slice(0, 5)) await page.keyboard.type(digit);
    for (let n = 1; n <= 5; n += 1) expect(await digitBox(page, n).inputValue()).toBe(code[n - 1]);
    expect(await digitBox(page, 6).inputValue()).toBe('');
    expect(await digitBox(page, 6).evaluate((box) => box === document.activeElement)).toBe(true);

    await page.keyboard.type(code[5]!);
    await skipToTenants(page, email, tenant);
  });

  it('pasting all six digits into the first box fills the boxes and submits', async () => {
    const { page, context } = h;
    const { email, tenant } = await personWithTenant('dave');
    const code = await reachCodeStep(page, email);

    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.base });
    await page.evaluate((value) => navigator.clipboard.writeText(value), code);
    await digitBox(page, 1).focus();
    await page.keyboard.press('ControlOrMeta+V');

    await skipToTenants(page, email, tenant);
  });

  it('after five wrong codes only Start again is offered, and starting again sends a new code', async () => {
    const { page } = h;
    const { email, tenant } = await personWithTenant('hanna');
    const code = await reachCodeStep(page, email);
    const wrong = code === '000000' ? '111111' : '000000';

    for (let attempt = 1; attempt <= 4; attempt += 1) {
      await digitBox(page, 1).fill(wrong);
      // Refused: the boxes come back empty with focus in the first, under "Invalid code".
      await expect.poll(() => digitBox(page, 1).evaluate((box: HTMLInputElement) => box === document.activeElement && box.value === '')).toBe(true);
      expect(await alertText(page)).toBe(t.en('errors.invalid_code'));
    }
    await digitBox(page, 1).fill(wrong);

    // The server sends no new code in this session: no code boxes, no "Send a new code".
    await page.getByRole('alert').filter({ hasText: t.en('errors.otp_retries_start_again') }).waitFor();
    expect(await alertText(page)).toBe(t.en('errors.otp_retries_start_again'));
    expect(await page.getByRole('button', { name: t.en('login.otp.resend'), exact: true }).count()).toBe(0);
    expect(await digitBox(page, 1).count()).toBe(0);
    await h.shot('otp-retries-exceeded');

    await startAgain(page, email);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: t.en('login.otp.title'), exact: true }).waitFor();
    const fresh = codeFrom(await h.mail.waitFor(email, (mail) => /\b\d{6}\b/.test(mail.text)));
    await digitBox(page, 1).fill(fresh);
    await skipToTenants(page, email, tenant);
  });
});

describe('authenticator code sign-in', () => {
  /** A password account with an authenticator; signs in with the password up to the code step. */
  async function reachMfaStep(page: Page, name: string) {
    const person = await personWithTenant(name, PASSWORD);
    const secret = newTotpSecret();
    await h.server.ctx.db('credentials').insert({ account_id: person.accountId, type: 'totp', secret: h.server.ctx.secretBox.seal(secret) });
    await openLogin(page);
    await enterEmail(page, person.email);
    await enterPassword(page, PASSWORD);
    await page.getByRole('heading', { name: t.en('login.mfa.title'), exact: true }).waitFor();
    return { ...person, wrong: await wrongCode(h.server.ctx, secret) };
  }

  const codeField = (page: Page) => page.getByLabel(t.en('login.mfa.code'), { exact: true });

  /** Types a code where focus is and presses Enter; waits until it is refused (field emptied). */
  async function typeRefusedCode(page: Page, code: string) {
    await page.keyboard.type(code);
    await page.keyboard.press('Enter');
    await expect
      .poll(() => codeField(page).evaluate((field: HTMLInputElement) => field === document.activeElement && !field.disabled && field.value === ''))
      .toBe(true);
  }

  it('a wrong code is cleared and focus stays in the field, so the next one can be typed at once', async () => {
    const { page } = h;
    const { wrong } = await reachMfaStep(page, 'ida');

    await typeRefusedCode(page, wrong);
    expect(await alertText(page)).toBe(t.en('errors.invalid_code'));
    await expectFocusOn(page, 'input', t.en('login.mfa.code'));

    await page.keyboard.type('123');
    expect(await codeField(page).inputValue()).toBe('123');
  });

  it('the fifth wrong code ends the sign-in: the form gives way to Start again', async () => {
    const { page } = h;
    const { email, wrong } = await reachMfaStep(page, 'jonas');

    for (let attempt = 1; attempt <= 4; attempt += 1) await typeRefusedCode(page, wrong);
    await page.keyboard.type(wrong);
    await page.keyboard.press('Enter');

    await page.getByRole('alert').filter({ hasText: t.en('errors.mfa_retries_exceeded') }).waitFor();
    expect(await alertText(page)).toBe(t.en('errors.mfa_retries_exceeded'));
    expect(await codeField(page).count()).toBe(0);
    expect(await page.getByRole('button', { name: t.en('login.mfa.submit'), exact: true }).count()).toBe(0);
    await h.shot('mfa-retries-exceeded');

    await startAgain(page, email);
  });
});

describe('Cancel', () => {
  it('ends the sign-in on the server too: a reload shows Start, not the cancelled step with the address', async () => {
    const { page } = h;
    const { email } = await personWithTenant('shared', PASSWORD);
    await openLogin(page);
    await enterEmail(page, email);
    const passwordField = page.getByLabel(t.en('login.credentials.password'), { exact: true });
    await passwordField.waitFor();

    const cancelled = page.waitForResponse((res) => new URL(res.url()).pathname === '/auth/login/cancel');
    await page.getByRole('button', { name: t.en('app.cancel'), exact: true }).click();
    expect((await cancelled).status()).toBe(204);
    const emailField = page.getByLabel(t.en('login.start.email'), { exact: true });
    expect(await emailField.inputValue()).toBe('');

    // The next person at this computer reloads: nothing of the cancelled sign-in comes back.
    await page.reload();
    await emailField.waitFor();
    expect(await emailField.inputValue()).toBe('');
    expect(await passwordField.count()).toBe(0);
    expect(await page.getByText(email).count()).toBe(0);
  });
});

describe('Cancel while a call runs', () => {
  it('cannot be pressed until the answer is in: a password already sent signs the person in, never behind a page showing Start', async () => {
    const { page } = h;
    const { email, tenant } = await personWithTenant('waiting', PASSWORD);
    await openLogin(page);
    await enterEmail(page, email);
    const held = holdRequest(page, '**/auth/login/verify-password');
    await page.getByLabel(t.en('login.credentials.password'), { exact: true }).fill(PASSWORD);
    await page.keyboard.press('Enter');
    const route = await held;

    const cancel = page.getByRole('button', { name: t.en('app.cancel'), exact: true });
    expect(await cancel.isDisabled()).toBe(true);
    await route.continue();
    await expectTenantSelection(page, email, tenant);
  });
});

describe('a sign-in resumed in a browser where someone is signed in already', () => {
  it('names the address being signed in, not the signed-in one, and that address’s password works', async () => {
    const { page } = h;
    const first = await personWithTenant('already', PASSWORD);
    const second = await personWithTenant('resumed', PASSWORD);
    await signInToTenants(page, first.email, PASSWORD, first.tenant);
    await openLogin(page);
    await enterEmail(page, second.email);
    await page.getByLabel(t.en('login.credentials.password'), { exact: true }).waitFor();

    // Back from "Forgot password?" or a reload: the page pings the sign-in under way.
    await page.reload();
    await page.getByText(t.en('login.signed_in_as', { email: second.email }), { exact: true }).waitFor();
    expect(await page.getByText(t.en('login.signed_in_as', { email: first.email }), { exact: true }).count()).toBe(0);
    await enterPassword(page, PASSWORD);
    await expectTenantSelection(page, second.email, second.tenant);
  });
});

describe('a call that gets no answer', () => {
  it('gives up after 20 seconds with the network error, and the form can be used again', async () => {
    const { page } = h;
    await page.clock.install();
    await openLogin(page);
    // The start call is held and never answered (a dropped connection, a proxy holding it).
    const held = holdRequest(page, '**/auth/login/start');
    await enterEmail(page, uniqueEmail('silent'));
    await held;
    const submit = page.getByRole('button', { name: t.en('login.start.submit'), exact: true });
    expect(await submit.getAttribute('aria-busy')).toBe('true');

    await page.clock.runFor(19_000);
    expect(await page.getByRole('alert').count()).toBe(0);
    await page.clock.runFor(1_500);
    expect(await alertText(page)).toBe(t.en('errors.network_error'));
    expect(await submit.isDisabled()).toBe(false);
  });
});

describe('when the list of sign-in providers cannot be loaded', () => {
  /** An account whose only way in is an upstream identity at `host` (no password). */
  async function upstreamOnly(name: string, host: string) {
    const person = await personWithTenant(name);
    await h.server.ctx.db('credentials').insert({ account_id: person.accountId, type: 'oidc', provider: host, subject: `${name}-${person.accountId}` });
    return person;
  }

  const passwordField = (page: Page) => page.getByLabel(t.en('login.credentials.password'), { exact: true });

  it('a Google-only account is still sent to Google (its credential names it), never shown a password form', async () => {
    const { page } = h;
    const { email } = await upstreamOnly('googleonly', 'accounts.google.com');
    await page.route('**/auth/providers', (route) => route.abort('connectionfailed'));

    const toGoogle = page.waitForRequest((request) => new URL(request.url()).pathname === '/auth/login/oauth/google');
    await openLogin(page);
    await enterEmail(page, email);
    await toGoogle;
    // This server has no Google configured, so the browser comes back with that error; the
    // step still offers Google, and still no password the account does not have.
    expect(await alertText(page)).toBe(t.en('upstream.errors.provider_not_configured'));
    await page.getByRole('link', { name: t.en('login.credentials.google'), exact: true }).waitFor();
    expect(await passwordField(page).count()).toBe(0);
  });

  it('an account it cannot classify without the list is offered Try again, not a password form', async () => {
    const { page } = h;
    const { email } = await upstreamOnly('unclassified', 'idp.example.test');
    const providersDown = await failWhileOn(page, '**/auth/providers', (route) => route.abort('connectionfailed'));
    providersDown.on = true;

    await openLogin(page);
    await enterEmail(page, email);
    expect(await alertText(page)).toBe(t.en('login.credentials.providers_failed'));
    expect(await passwordField(page).count()).toBe(0);
    await expectFocusOn(page, 'button', t.en('app.retry'));
    await h.shot('login-providers-failed');

    // Loaded now: this server has no provider, so the password form is the only way left.
    providersDown.on = false;
    await page.getByRole('button', { name: t.en('app.retry'), exact: true }).click();
    await passwordField(page).waitFor();
    expect(await page.getByText(t.en('login.credentials.providers_failed')).count()).toBe(0);
  });
});

describe('password reset', () => {
  it('"Forgot password?" keeps the sign-in\'s query: the request carries its type, and Back to sign in returns into it', async () => {
    const { page } = h;
    const { email } = await personWithTenant('athenareset', PASSWORD);
    const query = '?type=athena&client_id=recruiting&interaction=abc123&lang=en';
    // A made-up request, which the page would rightly drop as ended: here it waits.
    await page.route('**/auth/interaction/abc123/status*', (route) => route.fulfill({ json: { state: 'active' } }));
    await openLogin(page, 'en', query);
    await enterEmail(page, email);
    await page.getByRole('link', { name: t.en('login.credentials.forgot'), exact: true }).click();
    await page.getByRole('heading', { name: t.en('reset.title'), exact: true }).waitFor();
    expect(new URL(page.url()).search).toBe(query);
    expect(await page.getByLabel(t.en('login.start.email'), { exact: true }).inputValue()).toBe(email);

    const sent = page.waitForRequest((request) => new URL(request.url()).pathname === '/auth/reset/request');
    await page.getByRole('button', { name: t.en('reset.submit'), exact: true }).click();
    expect((await sent).postDataJSON()).toEqual({ email, type: 'athena' });
    await page.getByRole('heading', { name: t.en('reset.sent_title'), exact: true }).waitFor();

    await page.getByRole('link', { name: t.en('app.back_to_login'), exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/login');
    expect(new URL(page.url()).search).toBe(query);
  });

  it('sends a link, sets a new password with it, and signs in with the new password', async () => {
    const { page } = h;
    const { email, tenant } = await personWithTenant('erin', PASSWORD);
    const newPassword = 'Brand-New-Pass-7?';

    await page.goto('/login/reset-password');
    await page.getByRole('heading', { name: t.en('reset.title'), exact: true }).waitFor();
    await page.getByLabel(t.en('login.start.email'), { exact: true }).fill(email);
    await page.getByRole('button', { name: t.en('reset.submit'), exact: true }).click();

    // Neutral confirmation; the form is gone.
    await page.getByRole('heading', { name: t.en('reset.sent_title'), exact: true }).waitFor();
    await page.getByText(t.en('reset.sent_body'), { exact: true }).waitFor();
    expect(await page.getByLabel(t.en('login.start.email'), { exact: true }).count()).toBe(0);
    await h.shot('reset-sent');

    const mail = await h.mail.waitFor(email, (message) => message.text.includes('/login/set-password/'));
    const link = /https?:\/\/\S+\/login\/set-password\/[^\s"<>]+/.exec(mail.text)?.[0];
    expect(link, `a set-password link in the mail "${mail.subject}"`).toBeDefined();
    expect(new URL(link!).origin).toBe(h.base);

    await page.goto(link!);
    await page.getByRole('heading', { name: t.en('set_password.title'), exact: true }).waitFor();
    await page.getByLabel(t.en('password.new'), { exact: true }).fill(newPassword);
    await page.getByLabel(t.en('password.repeat'), { exact: true }).fill(newPassword);
    await h.shot('set-password');
    await page.getByRole('button', { name: t.en('set_password.submit'), exact: true }).click();

    await page.getByRole('heading', { name: t.en('success.new_password_set'), exact: true }).waitFor();
    await page.getByRole('button', { name: t.en('app.go_to_login'), exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/login');

    await signInToTenants(page, email, newPassword, tenant);
  });

  it('a locked account is offered the reset beside the lock message, and the reset unlocks it', async () => {
    const { page } = h;
    const { email, tenant } = await personWithTenant('lockedout', PASSWORD);
    const newPassword = 'Unlocked-Again-8?';
    // 100 failures in a row: locked for 30 days, until a reset.
    const meta = { accountId: null, method: 'password', reason: 'invalid_credentials', ip: null, userAgent: null };
    for (let i = 0; i < lockoutPolicy.maxConsecutiveFailures; i += 1) await recordFailure(h.server.ctx, email, meta).catch(() => {});
    await expect(assertNotLocked(h.server.ctx, { email })).rejects.toMatchObject({ type: 'account_locked' });

    await openLogin(page);
    await enterEmail(page, email);
    // The lock's Retry-After (30 days) is put into words.
    expect(await alertText(page)).toBe(t.en('errors.account_locked_days_other', { count: 30 }));
    await page.getByRole('link', { name: t.en('login.locked_reset'), exact: true }).click();
    await page.getByRole('heading', { name: t.en('reset.title'), exact: true }).waitFor();
    // The reset page starts with the address that was locked.
    expect(await page.getByLabel(t.en('login.start.email'), { exact: true }).inputValue()).toBe(email);
    await page.getByRole('button', { name: t.en('reset.submit'), exact: true }).click();
    await page.getByRole('heading', { name: t.en('reset.sent_title'), exact: true }).waitFor();

    const mail = await h.mail.waitFor(email, (message) => message.text.includes('/login/set-password/'));
    await page.goto(/https?:\/\/\S+\/login\/set-password\/[^\s"<>]+/.exec(mail.text)![0]);
    await page.getByLabel(t.en('password.new'), { exact: true }).fill(newPassword);
    await page.getByLabel(t.en('password.repeat'), { exact: true }).fill(newPassword);
    await page.getByRole('button', { name: t.en('set_password.submit'), exact: true }).click();
    await page.getByRole('heading', { name: t.en('success.new_password_set'), exact: true }).waitFor();

    await signInToTenants(page, email, newPassword, tenant);
  });

  it('a browser that signed in before goes on signing in while the address is locked from elsewhere', async () => {
    const { page } = h;
    const { email, tenant } = await personWithTenant('knownbrowser', PASSWORD);
    await signInToTenants(page, email, PASSWORD, tenant);

    // Someone else's browser locks the address with wrong passwords.
    const meta = { accountId: null, method: 'password', reason: 'invalid_credentials', ip: null, userAgent: null };
    for (let i = 0; i < lockoutPolicy.maxFailures; i += 1) await recordFailure(h.server.ctx, email, meta).catch(() => {});
    const stranger = await h.browser.newContext({ baseURL: h.base });
    const strangerPage = await stranger.newPage();
    await openLogin(strangerPage);
    await enterEmail(strangerPage, email);
    // The first lock lasts 15 minutes, and the message says so.
    expect(await alertText(strangerPage)).toBe(t.en('errors.account_locked_minutes_other', { count: 15 }));
    await stranger.close();

    // The owner's browser, signed out, signs in again: its nyckel_known cookie is its own count.
    await h.context.clearCookies({ name: 'nyckel_session' });
    await signInToTenants(page, email, PASSWORD, tenant);
  });

  it('after sending, focus moves to the confirmation, and Tab goes on to Back to sign in', async () => {
    const { page } = h;
    await page.goto('/login/reset-password');
    await page.getByLabel(t.en('login.start.email'), { exact: true }).fill(uniqueEmail('focus'));
    await page.keyboard.press('Enter');

    await page.getByRole('heading', { name: t.en('reset.sent_title'), exact: true }).waitFor();
    await expectFocusOn(page, 'h2', t.en('reset.sent_title'));
    await page.keyboard.press('Tab');
    await expectFocusOn(page, 'a', t.en('app.back_to_login'));
  });

  it('a used link offers a new link (focused) and the way back to sign-in, in the page language', async () => {
    const { page } = h;
    const { email } = await personWithTenant('kajsa', PASSWORD);
    const link = await requestResetLink(page, email);
    await page.goto(link);
    await page.getByLabel(t.en('password.new'), { exact: true }).fill('Used-Link-Pass-9?');
    await page.getByLabel(t.en('password.repeat'), { exact: true }).fill('Used-Link-Pass-9?');
    await page.getByRole('button', { name: t.en('set_password.submit'), exact: true }).click();
    await page.getByRole('heading', { name: t.en('success.new_password_set'), exact: true }).waitFor();

    // The same link again, in Swedish.
    await page.goto(`${link}?lang=sv`);
    expect(await alertText(page)).toBe(t.sv('errors.invalid_or_expired_token'));
    await page.getByText(t.sv('set_password.invalid_help'), { exact: true }).waitFor();
    await expectFocusOn(page, 'a', t.sv('set_password.new_link'));
    await page.keyboard.press('Tab');
    await expectFocusOn(page, 'a', t.sv('app.back_to_login'));
    expect(await page.getByRole('link', { name: t.sv('app.back_to_login'), exact: true }).getAttribute('href')).toBe('/login?lang=sv');
    await h.shot('set-password-used-link-sv');

    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.pathname === '/login/reset-password');
    await page.getByRole('heading', { name: t.sv('reset.title'), exact: true }).waitFor();
    await page.getByLabel(t.sv('login.start.email'), { exact: true }).waitFor();
  });

  it('a link spent after the page opened it gives way to a new link, not a form that cannot work', async () => {
    const { page } = h;
    const { email, accountId } = await personWithTenant('linnea', PASSWORD);
    const link = await requestResetLink(page, email);
    await page.goto(link);
    await page.getByLabel(t.en('password.new'), { exact: true }).fill('Spent-Link-Pass-9?');
    await page.getByLabel(t.en('password.repeat'), { exact: true }).fill('Spent-Link-Pass-9?');
    // Used meanwhile (another tab, another device): the server answers 406 reset_failed.
    await h.server.ctx.db('password_reset_tokens').where({ account_id: accountId }).update({ used_at: new Date() });
    await page.getByRole('button', { name: t.en('set_password.submit'), exact: true }).click();

    expect(await alertText(page)).toBe(t.en('errors.password_reset_failed'));
    await page.getByText(t.en('set_password.invalid_help'), { exact: true }).waitFor();
    await expectFocusOn(page, 'a', t.en('set_password.new_link'));
    expect(await page.getByRole('link', { name: t.en('app.back_to_login'), exact: true }).getAttribute('href')).toBe('/login');
    expect(await page.getByLabel(t.en('password.new'), { exact: true }).count()).toBe(0);
  });

  it('after a refused request focus is back in the address field, to correct it', async () => {
    const { page } = h;
    await page.goto('/login/reset-password');
    const field = page.getByLabel(t.en('login.start.email'), { exact: true });
    // The page's simple pattern lets it through; the server's check does not.
    await field.fill('anna@firma.s');
    await page.keyboard.press('Enter');
    expect(await alertText(page)).toBe(t.en('errors.invalid_email'));
    await expectFocusOn(page, 'input', t.en('login.start.email'));
    expect(await field.isDisabled()).toBe(false);
  });

  it('a new password the server refuses puts focus back on it, with the reason', async () => {
    const { page } = h;
    const { email } = await personWithTenant('common', PASSWORD);
    const link = await requestResetLink(page, email);
    await page.goto(link);
    // Meets every rule the page ticks off, and is on the list of the most common passwords.
    await page.getByLabel(t.en('password.new'), { exact: true }).fill('P@ssw0rd123');
    await page.getByLabel(t.en('password.repeat'), { exact: true }).fill('P@ssw0rd123');
    await page.getByRole('button', { name: t.en('set_password.submit'), exact: true }).click();
    expect(await alertText(page)).toBe(t.en('password.too_common'));
    await expectFocusOn(page, 'input', t.en('password.new'));
  });

  it('a required reset that fails to send gives the focus back to its button, and the confirmation takes it once sent', async () => {
    const { page } = h;
    const email = uniqueEmail('migrated');
    await createAccount(h.server.ctx.db, { email, password: PASSWORD, password_reset_required: true });
    const requestsDown = await failWhileOn(page, '**/auth/reset/request', (route) => route.abort('connectionrefused'));
    await openLogin(page);
    await enterEmail(page, email);
    const send = page.getByRole('button', { name: t.en('login.reset_required.submit'), exact: true });
    await send.waitFor();

    requestsDown.on = true;
    await send.focus();
    await page.keyboard.press('Enter');
    expect(await alertText(page)).toBe(t.en('errors.network_error'));
    await expectFocusOn(page, 'button', t.en('login.reset_required.submit'));

    requestsDown.on = false;
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: t.en('reset.sent_title'), exact: true }).waitFor();
    await expectFocusOn(page, 'h2', t.en('reset.sent_title'));
    await h.mail.waitFor(email, (message) => message.text.includes('/login/set-password/'));
  });

  it('an address without an account gets the same confirmation', async () => {
    const { page } = h;
    await page.goto('/login/reset-password');
    await page.getByLabel(t.en('login.start.email'), { exact: true }).fill(uniqueEmail('nobody'));
    await page.getByRole('button', { name: t.en('reset.submit'), exact: true }).click();

    await page.getByRole('heading', { name: t.en('reset.sent_title'), exact: true }).waitFor();
    await page.getByText(t.en('reset.sent_body'), { exact: true }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
  });
});

describe('Swedish', () => {
  it('/login?lang=sv is in Swedish and a wrong password gets the Swedish message', async () => {
    const { page } = h;
    const { email } = await personWithTenant('frida', PASSWORD);
    // The check can only fail if the two languages differ.
    for (const key of ['login.start.email', 'login.start.submit', 'errors.invalid_credentials']) expect(t.sv(key)).not.toBe(t.en(key));

    await openLogin(page, 'sv', '?lang=sv');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('sv');
    await page.getByText(t.sv('login.start.intro'), { exact: true }).waitFor();
    await page.getByRole('button', { name: t.sv('login.start.submit'), exact: true }).waitFor();
    expect(await page.getByLabel(t.en('login.start.email'), { exact: true }).count()).toBe(0);
    // `lang` in the query hides the language selector (spec section 2).
    expect(await page.getByRole('group', { name: t.sv('language.label') }).count()).toBe(0);
    await h.shot('login-sv');

    await enterEmail(page, email, 'sv');
    await enterPassword(page, 'Wrong-Horse-42!', 'sv');
    expect(await alertText(page)).toBe(t.sv('errors.invalid_credentials'));
    await h.shot('login-sv-invalid-credentials');
  });

  it('the flag selector switches the English page to Swedish', async () => {
    const { page } = h;
    await openLogin(page);
    await page.getByRole('group', { name: t.en('language.label') }).getByRole('button', { name: t.en('language.sv') }).click();
    await page.getByRole('heading', { name: t.sv('login.title'), exact: true }).waitFor();
    await page.getByLabel(t.sv('login.start.email'), { exact: true }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('sv');
  });
});

describe('keyboard only', () => {
  /** Presses Tab until the element named `name` has focus (fails after `max` presses). */
  async function tabTo(page: Page, tag: string, name: string, max = 12) {
    for (let i = 0; i < max; i += 1) {
      const now = await focused(page);
      if (now.tag === tag && now.name === name) return;
      await page.keyboard.press('Tab');
    }
    throw new Error(`Tab never reached <${tag}> "${name}"; focus is on ${JSON.stringify(await focused(page))}`);
  }

  it('signs in with Tab, typing and Enter only', async () => {
    const { page } = h;
    const { email, tenant } = await personWithTenant('gustav', PASSWORD);

    await openLogin(page);
    await tabTo(page, 'input', t.en('login.start.email'));
    await page.keyboard.type(email);
    await tabTo(page, 'button', t.en('login.start.submit'));
    await page.keyboard.press('Enter');

    await page.getByLabel(t.en('login.credentials.password'), { exact: true }).waitFor();
    await tabTo(page, 'input', t.en('login.credentials.password'));
    await page.keyboard.type(PASSWORD);
    await tabTo(page, 'button', t.en('login.credentials.submit'));
    await page.keyboard.press('Enter');

    await expectTenantSelection(page, email, tenant);
    // The first tenant card has focus, ready for Enter.
    expect((await focused(page)).tag).toBe('a');
    expect(await page.evaluate(() => document.activeElement?.textContent ?? '')).toContain(tenant.name);
  });
});
