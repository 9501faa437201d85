import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { rememberDevice } from '../../src/login/remembered-device.ts';
import { destroyAccountPortalSessions } from '../../src/session/portal-session.ts';
import { createAccount, createTenant, grantAccess } from '../fixtures/accounts.ts';
import { BrowserLike } from '../helpers/browser-like.ts';
import { failWhileOn, useBrowserHarness } from './harness.ts';
import { t } from './texts.ts';

/**
 * The account profile as a person uses it: the language select switches the page at once and the
 * choice is kept on the account; another session is signed out from the list; a change to how one
 * signs in after 5 minutes goes through /login and back to /profile. Real app, real Chromium.
 */
const h = useBrowserHarness();

const PASSWORD = 'Correct-Horse-42!';
let counter = 0;

async function personWithTenant(options: { stakeholder?: boolean } = {}) {
  counter += 1;
  const email = `profile-${counter}-${Date.now()}@example.test`;
  const id = await createAccount(h.server.ctx.db, {
    email,
    password: PASSWORD,
    name: `Pat Person ${counter}`,
    is_user: !options.stakeholder,
    is_stakeholder: options.stakeholder === true,
  });
  const tenantId = await createTenant(h.server.ctx.db, `profile${counter}${Date.now()}`, { name: `Profile Tenant ${counter}` });
  await grantAccess(h.server.ctx.db, id, tenantId);
  return { id, email };
}

async function signIn(page: Page, email: string, path = '/login') {
  await page.goto(path);
  await page.getByLabel(t.en('login.start.email'), { exact: true }).fill(email);
  await page.getByRole('button', { name: t.en('login.start.submit'), exact: true }).click();
  await page.getByLabel(t.en('login.credentials.password'), { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: t.en('login.credentials.submit'), exact: true }).click();
}

/** Another browser signed in to the same account, over HTTP. */
async function otherSession(email: string): Promise<BrowserLike> {
  const browser = new BrowserLike(h.base);
  const start = await browser.json<{ session_id: string }>('/auth/login/start', { email });
  const done = await browser.json<{ state: string }>('/auth/login/verify-password', { session_id: start.body.session_id, email, password: PASSWORD });
  expect(done.body.state).toBe('Done');
  return browser;
}

const heading = (page: Page, text: string) => page.getByRole('heading', { level: 1, name: text, exact: true });

/** Whether the element is the page's document.activeElement (where a keyboard user goes on from). */
const isFocused = (locator: Locator) => locator.evaluate((element) => element === document.activeElement);

/** Signed in with the password and on /profile, the person's email on the page. */
async function onProfile(page: Page, email: string) {
  await signIn(page, email);
  await page.waitForURL((url) => url.pathname !== '/login');
  await page.goto('/profile');
  await page.getByText(email, { exact: true }).first().waitFor();
}

describe('account profile in the browser', () => {
  it('switches the language to Swedish at once, and keeps it on the account after a reload', async () => {
    const { id, email } = await personWithTenant();
    const { page } = h;
    await signIn(page, email);
    await page.waitForURL((url) => url.pathname === '/login/select-tenant');
    await page.goto('/profile');
    await heading(page, t.en('profile.title')).waitFor();

    await page.getByLabel(t.en('profile.language'), { exact: true }).selectOption('sv');
    await heading(page, t.sv('profile.title')).waitFor();
    await page.getByRole('status').filter({ hasText: t.sv('profile.language_saved') }).waitFor();
    await h.shot('profile-swedish');
    expect((await h.server.ctx.db('accounts').where({ id }).first('locale')).locale).toBe('sv');

    await page.reload();
    await heading(page, t.sv('profile.title')).waitFor();
    expect(await page.locator('html').getAttribute('lang')).toBe('sv');

    // Not only this browser's cache: the language saved on the account applies on load.
    await page.evaluate(() => window.localStorage.clear());
    await page.reload();
    await heading(page, t.sv('profile.title')).waitFor();
    await page.getByRole('heading', { level: 2, name: t.sv('profile.activity.title'), exact: true }).waitFor();
    await page.getByText(t.sv('profile.activity.actions.setting_locale', { language: t.sv('language.sv') })).waitFor();
  });

  it('signs out another session from the list', async () => {
    const { email } = await personWithTenant();
    const other = await otherSession(email);
    const { page } = h;
    await signIn(page, email);
    await page.waitForURL((url) => url.pathname === '/login/select-tenant');
    await page.goto('/profile');

    const sessions = page.getByRole('list', { name: t.en('profile.sessions.title'), exact: true });
    await expect.poll(() => sessions.getByRole('listitem').count()).toBe(2);
    await sessions.getByText(t.en('profile.sessions.current'), { exact: true }).waitFor();
    await sessions
      .getByRole('button', { name: `${t.en('profile.sessions.sign_out')} ${t.en('profile.sessions.unknown_device')}`, exact: true })
      .click();
    await page.getByRole('status').filter({ hasText: t.en('profile.sessions.signed_out') }).waitFor();
    await expect.poll(() => sessions.getByRole('listitem').count()).toBe(1);
    expect((await other.request('/oauth2/userinfo')).status).toBe(401);
    await h.shot('profile-sessions');
  });

  it('sends a stale session through /login and back to /profile before turning the password off', async () => {
    const { email } = await personWithTenant({ stakeholder: true });
    const { page } = h;
    await signIn(page, email);
    await page.waitForURL((url) => url.pathname !== '/login');
    await page.goto('/profile');
    const passwordSwitch = page.getByRole('switch', { name: t.en('profile.password.switch'), exact: true });
    await passwordSwitch.waitFor();
    expect(await passwordSwitch.isChecked()).toBe(true);
    // The hint says what the switch does from where it is: on, turning it off.
    const hint = page.locator(`#${await passwordSwitch.getAttribute('aria-describedby')}`);
    expect(await hint.textContent()).toBe(t.en('profile.password.stakeholder_on'));

    h.server.ctx.advance(6 * 60 * 1000);
    await passwordSwitch.click();
    await page.getByRole('button', { name: t.en('profile.password.confirm'), exact: true }).click();
    await page.getByText(t.en('profile.reauth.body')).waitFor();
    await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.get('return_to') === '/profile');
    await page.getByLabel(t.en('login.credentials.password'), { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: t.en('login.credentials.submit'), exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/profile');

    await passwordSwitch.click();
    await page.getByRole('button', { name: t.en('profile.password.confirm'), exact: true }).click();
    await page.getByRole('status').filter({ hasText: t.en('success.credential_deleted') }).waitFor();
    await expect.poll(() => passwordSwitch.isChecked()).toBe(false);
    expect(await hint.textContent()).toBe(t.en('profile.password.stakeholder_intro'));
  });
});

describe('a session that ends while the profile is open', () => {
  it('says so on /login, and signing in again returns to /profile', async () => {
    const { id, email } = await personWithTenant();
    const { page } = h;
    await onProfile(page, email);
    // Every section has loaded: the next call to notice the ended session is the save.
    await page.waitForLoadState('networkidle');
    await destroyAccountPortalSessions(h.server.ctx, id);

    await page.getByRole('button', { name: t.en('profile.name_edit'), exact: true }).click();
    await page.getByLabel(t.en('profile.name'), { exact: true }).fill('Pat Too Late');
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.pathname === '/login');
    expect(new URL(page.url()).searchParams.get('return_to')).toBe('/profile');
    expect((await page.getByRole('alert').innerText()).trim()).toBe(t.en('errors.session_expired'));
    await h.shot('profile-session-expired');

    await page.getByLabel(t.en('login.start.email'), { exact: true }).fill(email);
    await page.getByRole('button', { name: t.en('login.start.submit'), exact: true }).click();
    await page.getByLabel(t.en('login.credentials.password'), { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: t.en('login.credentials.submit'), exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/profile');
    await heading(page, t.en('profile.title')).waitFor();
  });
});

describe('unlinking Google from the profile', () => {
  const googleSwitch = (page: Page) =>
    page.getByRole('switch', { name: t.en('upstream.switches.label', { provider: t.en('provider.google') }), exact: true });

  it('gives the focus back to the switch after Escape, Keep it and the unlink, and holds the switches while asking', async () => {
    const { id, email } = await personWithTenant();
    await h.server.ctx.db('credentials').insert({ account_id: id, type: 'oidc', provider: 'accounts.google.com', subject: `profile-google-${counter}` });
    const { page } = h;
    // The test server has no Google configured; the page is told it has.
    await page.route('**/auth/providers', (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ providers: [{ id: 'google', host: 'accounts.google.com' }] }) }),
    );
    await onProfile(page, email);
    const toggle = googleSwitch(page);
    const unlink = page.getByRole('button', { name: t.en('upstream.switches.confirm'), exact: true });
    expect(await toggle.isChecked()).toBe(true);

    await toggle.focus();
    await page.keyboard.press('Space');
    await expect.poll(() => isFocused(unlink)).toBe(true);
    expect(await toggle.isDisabled()).toBe(true);
    await page.keyboard.press('Escape');
    await unlink.waitFor({ state: 'detached' });
    await expect.poll(() => isFocused(toggle)).toBe(true);

    await page.keyboard.press('Space');
    await page.getByRole('button', { name: t.en('upstream.switches.keep'), exact: true }).click();
    await expect.poll(() => isFocused(toggle)).toBe(true);
    expect(await toggle.isChecked()).toBe(true);

    await page.keyboard.press('Space');
    await unlink.click();
    await page.getByRole('status').filter({ hasText: t.en('upstream.switches.unlinked', { provider: t.en('provider.google') }) }).waitFor();
    await expect.poll(() => toggle.isChecked()).toBe(false);
    await expect.poll(() => isFocused(toggle)).toBe(true);
    expect(await h.server.ctx.db('credentials').where({ account_id: id, type: 'oidc' })).toHaveLength(0);
  });
});

describe('signing this browser out from the profile', () => {
  const signOutButton = (page: Page) => page.getByRole('button', { name: t.en('profile.sign_out.button'), exact: true });

  it('shows a loading Sign out in the header, ends the session, goes to /login, and /profile then asks to sign in', async () => {
    const { email } = await personWithTenant();
    const { page } = h;
    await onProfile(page, email);

    // Held until the button's loading state has been seen.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/accounts/sessions/sign-out', async (route) => {
      await held;
      await route.continue();
    });
    await signOutButton(page).click();
    await expect.poll(() => signOutButton(page).getAttribute('aria-busy')).toBe('true');
    expect(await signOutButton(page).isDisabled()).toBe(true);
    release();

    await page.waitForURL((url) => url.pathname === '/login');
    await page.getByLabel(t.en('login.start.email'), { exact: true }).waitFor();
    // The session itself ended on the server, not only on this page.
    expect((await page.request.get('/oauth2/userinfo')).status()).toBe(401);

    await page.goto('/profile');
    await page.waitForURL((url) => url.pathname === '/login');
    await page.getByLabel(t.en('login.start.email'), { exact: true }).waitFor();
    expect(await page.getByText(email).count()).toBe(0);
    expect(await heading(page, t.en('profile.title')).count()).toBe(0);
  });

  it('signs out from the "This browser" row of the active sessions', async () => {
    const { email } = await personWithTenant();
    const { page } = h;
    await onProfile(page, email);

    const sessions = page.getByRole('list', { name: t.en('profile.sessions.title'), exact: true });
    const signOutHere = sessions
      .getByRole('listitem')
      .filter({ hasText: t.en('profile.sessions.current') })
      .getByRole('button', { name: t.en('profile.sessions.sign_out_here'), exact: true });
    // Its label on one line at 1024 px (the harness's width): the distinct tops of its text's line boxes.
    const lines = await signOutHere.evaluate((button) => {
      const range = document.createRange();
      range.selectNodeContents(button);
      return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
    });
    expect(lines).toBe(1);
    await signOutHere.click();
    await page.waitForURL((url) => url.pathname === '/login');
    expect((await page.request.get('/oauth2/userinfo')).status()).toBe(401);
  });

  it('stays on the page with the error and focus back on Sign out when signing out fails', async () => {
    const { email } = await personWithTenant();
    const { page } = h;
    await onProfile(page, email);
    await page.route('**/api/accounts/sessions/sign-out', (route) =>
      route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ detail: [{ type: 'internal_error', msg: 'boom' }] }) }),
    );

    await signOutButton(page).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: t.en('profile.sign_out.failed') }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/profile');
    await expect.poll(() => isFocused(signOutButton(page))).toBe(true);
    expect((await page.request.get('/oauth2/userinfo')).status()).toBe(200);
  });
});

describe('keyboard focus on the profile', () => {
  it('keeps focus on the language select while the choice saves', async () => {
    const { email } = await personWithTenant();
    const { page } = h;
    await onProfile(page, email);

    await page.getByRole('combobox', { name: t.en('profile.language'), exact: true }).focus();
    await page.getByRole('combobox', { name: t.en('profile.language'), exact: true }).selectOption('sv');
    await page.getByRole('status').filter({ hasText: t.sv('profile.language_saved') }).waitFor();
    await expect.poll(() => isFocused(page.getByRole('combobox', { name: t.sv('profile.language'), exact: true }))).toBe(true);
  });

  it('puts focus back in the name field after a failed save, and on Edit name once it is saved', async () => {
    const { email } = await personWithTenant();
    const { page } = h;
    const savesFail = await failWhileOn(page, '**/api/accounts/settings', (route) =>
      route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ detail: [{ type: 'internal_error', msg: 'boom' }] }) }),
    );
    await onProfile(page, email);

    const edit = page.getByRole('button', { name: t.en('profile.name_edit'), exact: true });
    await edit.click();
    const field = page.getByLabel(t.en('profile.name'), { exact: true });
    await expect.poll(() => isFocused(field)).toBe(true);
    await field.fill('Pat Renamed');
    savesFail.on = true;
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: t.en('profile.name_failed') }).waitFor();
    await expect.poll(() => isFocused(field)).toBe(true);

    savesFail.on = false;
    await page.keyboard.press('Enter');
    await page.getByText(t.en('profile.name_saved'), { exact: true }).waitFor();
    await page.getByText('Pat Renamed', { exact: true }).waitFor();
    await expect.poll(() => isFocused(edit)).toBe(true);
  });

  it('focuses the current password after a wrong one, and the confirmation after the change', async () => {
    const { email } = await personWithTenant();
    const { page } = h;
    await onProfile(page, email);

    const current = page.getByLabel(t.en('profile.change_password.current'), { exact: true });
    await current.fill('Not-The-Password-1!');
    await page.getByLabel(t.en('password.new'), { exact: true }).fill('Brand-New-Horse-43!');
    await page.getByLabel(t.en('password.repeat'), { exact: true }).fill('Brand-New-Horse-43!');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: t.en('profile.change_password.current_invalid') }).waitFor();
    await expect.poll(() => isFocused(current)).toBe(true);
    // The focused field is described by the error, so a screen reader reads it with the field.
    const description = await current.evaluate((input) => document.getElementById(input.getAttribute('aria-describedby') ?? '')?.textContent);
    expect(description).toBe(t.en('profile.change_password.current_invalid'));
    expect(await current.getAttribute('aria-invalid')).toBe('true');

    await current.fill(PASSWORD);
    await page.keyboard.press('Enter');
    const changed = page.getByRole('status').filter({ hasText: t.en('profile.change_password.changed') });
    await changed.waitFor();
    await expect.poll(() => isFocused(changed)).toBe(true);
  });

  it('gives the focus back to Forget after forgetting a remembered device fails', async () => {
    const { id, email } = await personWithTenant();
    await rememberDevice(h.server.ctx, id, 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36', undefined);
    const { page } = h;
    await onProfile(page, email);
    const devices = page.getByRole('region', { name: t.en('profile.devices.title'), exact: true });
    const forget = devices.getByRole('button', { name: new RegExp(`^${t.en('profile.devices.forget')}\\b`) });
    await page.route('**/auth/tfa/devices/*', (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: '{"detail":[{"type":"service_unavailable","msg":"x"}]}' }),
    );

    // Forgetting disables every Forget while the call runs, which drops the focus to the page.
    await forget.focus();
    await page.keyboard.press('Enter');
    await devices.getByRole('alert').filter({ hasText: t.en('profile.devices.forget_failed') }).waitFor();
    await expect.poll(() => isFocused(forget)).toBe(true);
    expect(await devices.getByRole('listitem').count()).toBe(1);
  });

  it('gives the focus back to the password switch after asking for a set-password link fails', async () => {
    const { id, email } = await personWithTenant({ stakeholder: true });
    const { page } = h;
    await onProfile(page, email);
    // Signed in with it, then the password goes: the switch is off and turning it on mails a link.
    await h.server.ctx.db('credentials').where({ account_id: id, type: 'password' }).delete();
    await page.reload();
    const passwordSwitch = page.getByRole('switch', { name: t.en('profile.password.switch'), exact: true });
    await expect.poll(() => passwordSwitch.isChecked()).toBe(false);
    await page.route('**/api/accounts/password/setup-link', (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: '{"detail":[{"type":"service_unavailable","msg":"x"}]}' }),
    );

    // The call disables the switch while it runs, which drops the focus to the page.
    await passwordSwitch.focus();
    await page.keyboard.press('Space');
    await page.getByRole('alert').filter({ hasText: t.en('profile.password.link_failed') }).waitFor();
    await expect.poll(() => isFocused(passwordSwitch)).toBe(true);
  });
});
