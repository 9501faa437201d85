import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createAccount } from '../fixtures/accounts.ts';
import { useBrowserHarness } from './harness.ts';
import { t } from './texts.ts';

/**
 * The profile applies the language saved on the account, and only a saved one: a person who never
 * chose keeps the browser's language on the profile and everywhere after it. Chromium speaks
 * Swedish here. Real app, real Chromium.
 */
const h = useBrowserHarness({ locale: 'sv-SE' });

const PASSWORD = 'Correct-Horse-42!';
let counter = 0;

async function person(locale: 'en' | null): Promise<{ id: string; email: string }> {
  counter += 1;
  const email = `language-${counter}-${Date.now()}@example.test`;
  const id = await createAccount(h.server.ctx.db, { email, password: PASSWORD });
  await h.server.ctx.db('accounts').where({ id }).update({ locale });
  return { id, email };
}

async function signIn(page: Page, email: string) {
  await page.goto('/login');
  await page.getByLabel(t.sv('login.start.email'), { exact: true }).fill(email);
  await page.getByRole('button', { name: t.sv('login.start.submit'), exact: true }).click();
  await page.getByLabel(t.sv('login.credentials.password'), { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: t.sv('login.credentials.submit'), exact: true }).click();
  await page.waitForURL((url) => url.pathname !== '/login');
}

const heading = (page: Page, text: string) => page.getByRole('heading', { level: 1, name: text, exact: true });

describe('the profile and the browser\'s language', () => {
  it('keeps a Swedish browser Swedish when the account never chose a language, on the profile and after it', async () => {
    const { id, email } = await person(null);
    const { page } = h;
    await signIn(page, email);
    await page.goto('/profile');
    await heading(page, t.sv('profile.title')).waitFor();
    await page.getByText(email, { exact: true }).first().waitFor();
    expect(await page.locator('html').getAttribute('lang')).toBe('sv');

    await page.goto('/login/select-tenant');
    await page.goto('/profile');
    await heading(page, t.sv('profile.title')).waitFor();
    expect(await page.evaluate(() => window.localStorage.getItem('i18nextLng'))).not.toBe('en');
    // Nothing was saved on the account by looking at it.
    expect((await h.server.ctx.db('accounts').where({ id }).first('locale')).locale).toBeNull();
  });

  it('switches to the language the person chose, English, in a Swedish browser', async () => {
    const { email } = await person('en');
    const { page } = h;
    await signIn(page, email);
    await page.goto('/profile');
    await heading(page, t.en('profile.title')).waitFor();
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
  });
});
