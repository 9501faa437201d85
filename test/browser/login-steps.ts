import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { createAccount, createTenant, grantAccess } from '../fixtures/accounts.ts';
import type { BrowserHarness } from './harness.ts';
import { t, type Language } from './texts.ts';

/** The sign-in journeys' shared steps: people with a tenant, and the /login page's first two screens. */
export const PASSWORD = 'Correct-Horse-42!';

/** Unique addresses, and an account with a password (optional) and access to one tenant of its own. */
export function people(h: BrowserHarness) {
  let counter = 0;
  const uniqueEmail = (name: string) => `${name}-${(counter += 1)}@example.test`;
  async function personWithTenant(name: string, password?: string) {
    const email = uniqueEmail(name);
    const accountId = await createAccount(h.server.ctx.db, { email, password });
    const slug = `${name.replace(/[^a-z0-9]/g, '')}${counter}`;
    const tenantName = `${name[0]!.toUpperCase()}${name.slice(1)} Recruiting ${counter}`;
    const tenantId = await createTenant(h.server.ctx.db, slug, { name: tenantName });
    await grantAccess(h.server.ctx.db, accountId, tenantId);
    return { email, accountId, tenant: { name: tenantName, slug } };
  }
  return { uniqueEmail, personWithTenant };
}

export async function openLogin(page: Page, language: Language = 'en', query = '') {
  await page.goto(`/login${query}`);
  await page.getByRole('heading', { name: t[language]('login.title'), exact: true }).waitFor();
}

export async function enterEmail(page: Page, email: string, language: Language = 'en') {
  await page.getByLabel(t[language]('login.start.email'), { exact: true }).fill(email);
  await page.getByRole('button', { name: t[language]('login.start.submit'), exact: true }).click();
}

export async function enterPassword(page: Page, password: string, language: Language = 'en') {
  await page.getByLabel(t[language]('login.credentials.password'), { exact: true }).fill(password);
  await page.getByRole('button', { name: t[language]('login.credentials.submit'), exact: true }).click();
}

/** The tenant selection, with a card for `tenant`. */
export async function expectTenantCard(page: Page, tenant: { name: string }) {
  await page.waitForURL((url) => url.pathname === '/login/select-tenant');
  await page.getByRole('link', { name: new RegExp(tenant.name) }).waitFor();
}

/** The text of the page's error alert, once one shows. */
export async function alertText(page: Page): Promise<string> {
  const alert = page.getByRole('alert');
  await alert.waitFor();
  return (await alert.innerText()).trim();
}

/** What has focus: its label, aria-label or text, and tag. */
export async function focused(page: Page) {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    if (!element) return { tag: '', name: '' };
    const labels = (element as HTMLInputElement).labels;
    const name = labels?.[0]?.textContent ?? element.getAttribute('aria-label') ?? element.textContent ?? '';
    return { tag: element.tagName.toLowerCase(), name: name.trim() };
  });
}

/** Waits (a focus move runs in an effect, just after the render) until `name` has focus. */
export async function expectFocusOn(page: Page, tag: string, name: string) {
  await expect.poll(() => focused(page), { message: `focus on <${tag}> "${name}"` }).toEqual({ tag, name });
}
