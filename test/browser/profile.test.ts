import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createAccount, createTenant, grantAccess } from '../fixtures/accounts.ts';
import { BrowserLike } from '../helpers/browser-like.ts';
import { useBrowserHarness } from './harness.ts';
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
    await sessions.getByText(t.en('profile.sessions.current')).waitFor();
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
  });
});
