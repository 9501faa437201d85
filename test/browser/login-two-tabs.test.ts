import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBrowserHarness } from './harness.ts';
import { startLoopbackRp, type LoopbackRp } from './loopback-rp.ts';
import { alertText, enterEmail, enterPassword, PASSWORD, people } from './login-steps.ts';
import { t } from './texts.ts';

/**
 * Two tabs of one application, each at /login for its own request, both past the email when the
 * person signs in in the first: the second tab's start must not have ended the first one's sign-in
 * ("Login session is expired"), and the second then finishes too.
 */
const h = useBrowserHarness();
const { personWithTenant } = people(h);
const clientId = 'two-tabs-rp';

let rp: LoopbackRp;
let rpBase: string;

beforeAll(async () => {
  rp = await startLoopbackRp(h.server, [clientId]);
  rpBase = rp.base;
});

afterAll(() => rp?.close());

/** A tab of the application, sent to Nyckel's /login for its own request. */
async function tabAtLogin(page: Page): Promise<Page> {
  await page.goto(`${rpBase}/start`);
  await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.has('interaction'));
  await page.getByLabel(t.en('login.start.email'), { exact: true }).waitFor();
  return page;
}

async function atPasswordStep(page: Page, email: string): Promise<void> {
  await page.bringToFront();
  await enterEmail(page, email);
  await page.getByLabel(t.en('login.credentials.password'), { exact: true }).waitFor();
}

/** Where the tab ended: the email the application's callback shows, or the error /login shows. */
async function outcome(page: Page): Promise<string> {
  const signedIn = page.locator('#email');
  const alert = page.getByRole('alert');
  await signedIn.or(alert).first().waitFor();
  if (await alert.count()) return `error: ${await alertText(page)}`;
  return signedIn.innerText();
}

describe('two tabs of one application mid-sign-in', () => {
  it('each finishes: the second tab’s start does not expire the first tab’s sign-in', async () => {
    const { email } = await personWithTenant('two-tabs', PASSWORD);
    const a = await tabAtLogin(h.page);
    const b = await tabAtLogin(await h.context.newPage());
    expect(new URL(a.url()).searchParams.get('interaction')).not.toBe(new URL(b.url()).searchParams.get('interaction'));

    await atPasswordStep(a, email);
    await atPasswordStep(b, email);

    await a.bringToFront();
    await enterPassword(a, PASSWORD);
    expect(await outcome(a)).toBe(email);
    expect(new URL(a.url()).href).toMatch(new RegExp(`^${rpBase}/callback\\?`));

    // Tab B finishes by its password, or by single sign-on should the page ask when shown again
    // (the Nyckel session tab A made answers its request): whichever the product does, never
    // "Login session is expired".
    await b.bringToFront();
    await b.waitForLoadState('networkidle');
    if (new URL(b.url()).pathname === '/login') await enterPassword(b, PASSWORD);
    const second = await outcome(b);
    expect(second).not.toContain(t.en('errors.login_session_expired'));
    expect(second).toBe(email);
    expect(new URL(b.url()).href).toMatch(new RegExp(`^${rpBase}/callback\\?`));
  });
});
