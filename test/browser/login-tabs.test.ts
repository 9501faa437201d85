import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBrowserHarness } from './harness.ts';
import { startLoopbackRp, type LoopbackRp } from './loopback-rp.ts';
import { enterEmail, enterPassword, PASSWORD, people } from './login-steps.ts';
import { t } from './texts.ts';

/**
 * Several tabs of one application, each sent to /login with its own request (restored together
 * in the morning): once the person signs in in one, the others finish by single sign-on when
 * they are shown again, instead of asking for the email and password once more.
 */
const h = useBrowserHarness();
const { personWithTenant } = people(h);
const clientId = 'tabs-rp';

let rp: LoopbackRp;
let rpBase: string;

beforeAll(async () => {
  rp = await startLoopbackRp(h.server, [clientId]);
  rpBase = rp.base;
});

afterAll(() => rp?.close());

/** A tab of the application, at Nyckel's /login for its own request; counts its status checks since it showed the form. */
async function tabAtLogin(page: Page): Promise<{ page: Page; checks: () => number }> {
  let checks = 0;
  page.on('request', (request) => {
    if (/\/auth\/interaction\/[^/]+\/status/.test(new URL(request.url()).pathname)) checks += 1;
  });
  await page.goto(`${rpBase}/start`);
  await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.has('interaction'));
  await page.getByLabel(t.en('login.start.email'), { exact: true }).waitFor();
  // Counted from when the tab is in front and the checks that brings have settled: a page that
  // gains focus asks once (its focus event), and CI once counted that as a return's.
  await page.bringToFront();
  await page.waitForLoadState('networkidle');
  const onLoad = checks;
  return { page, checks: () => checks - onLoad };
}

/**
 * The person switches back to the tab. Headless Chromium keeps every page visible and focused
 * (bringToFront fires neither visibilitychange nor focus: checked), so the switch is played as a
 * browser plays it: blur and hidden when the tab was left, visible and focus when it comes back.
 */
async function switchBackTo(page: Page): Promise<void> {
  await page.bringToFront();
  await page.evaluate(() => {
    let state: DocumentVisibilityState = 'hidden';
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => state });
    window.dispatchEvent(new Event('blur'));
    document.dispatchEvent(new Event('visibilitychange'));
    state = 'visible';
    document.dispatchEvent(new Event('visibilitychange'));
    window.dispatchEvent(new Event('focus'));
  });
}

describe('tabs of one application waiting at /login', () => {
  it('finish without a sign-in once the person signed in in another: when shown again, or reloaded', async () => {
    const { email } = await personWithTenant('tabs', PASSWORD);
    const a = await tabAtLogin(h.page);
    const b = await tabAtLogin(await h.context.newPage());
    const c = await tabAtLogin(await h.context.newPage());

    await a.page.bringToFront();
    await enterEmail(a.page, email);
    await enterPassword(a.page, PASSWORD);
    await a.page.waitForURL(`${rpBase}/callback?**`);
    expect(await a.page.locator('#email').innerText()).toBe(email);

    // Nothing asks while a tab is not looked at again: no timers.
    expect([b.checks(), c.checks()]).toEqual([0, 0]);
    await switchBackTo(b.page);
    await b.page.waitForURL(`${rpBase}/callback?**`);
    expect(await b.page.locator('#email').innerText()).toBe(email);
    // visibilitychange and focus of one return: one check.
    expect(b.checks()).toBe(1);

    await c.page.reload();
    await c.page.waitForURL(`${rpBase}/callback?**`);
    expect(await c.page.locator('#email').innerText()).toBe(email);
  });

  it('stays at the form while no session answers its request, asking once per return', async () => {
    const b = await tabAtLogin(h.page);
    await switchBackTo(b.page);
    await expect.poll(() => b.checks()).toBe(1);
    await switchBackTo(b.page);
    await expect.poll(() => b.checks()).toBe(2);
    expect(new URL(b.page.url()).pathname).toBe('/login');
    await b.page.getByLabel(t.en('login.start.email'), { exact: true }).waitFor();
  });

  it('asks for a return made while the last check is out once that one answers: the other sign-in may have come between', async () => {
    const b = await tabAtLogin(h.page);
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding = true;
    await h.page.route('**/auth/interaction/*/status**', async (route) => {
      if (holding) await held;
      await route.continue();
    });
    await switchBackTo(b.page);
    await expect.poll(() => b.checks()).toBe(1);
    await switchBackTo(b.page);
    await switchBackTo(b.page);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(b.checks()).toBe(1);
    holding = false;
    release();
    await expect.poll(() => b.checks()).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(b.checks()).toBe(2);
    expect(new URL(b.page.url()).pathname).toBe('/login');
  });

  it('does not ask while a call of the sign-in is in flight: its own answer moves the page', async () => {
    const { email } = await personWithTenant('tabs-busy', PASSWORD);
    const b = await tabAtLogin(h.page);
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await h.page.route('**/auth/login/start**', async (route) => {
      await held;
      await route.continue();
    });
    await enterEmail(b.page, email);
    await b.page.locator('[aria-busy="true"]').waitFor();
    await switchBackTo(b.page);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(b.checks()).toBe(0);
    release();
    await b.page.getByLabel(t.en('login.credentials.password'), { exact: true }).waitFor();
    expect(b.checks()).toBe(0);
  });
});

describe('tabs of one application both in the middle of a sign-in', () => {
  it("the first tab signs in after a second one started, a reload resumes each tab's own, and the second finishes when shown again", async () => {
    const { email } = await personWithTenant('tabs-both', PASSWORD);
    const passwordField = (page: Page) => page.getByLabel(t.en('login.credentials.password'), { exact: true });
    const a = await tabAtLogin(h.page);
    const b = await tabAtLogin(await h.context.newPage());

    await a.page.bringToFront();
    await enterEmail(a.page, email);
    await passwordField(a.page).waitFor();
    await b.page.bringToFront();
    await enterEmail(b.page, email);
    await passwordField(b.page).waitFor();

    // The first tab, reloaded at the password step, is back at its own password step, not at the
    // second tab's sign-in (for another request), and signing in there finishes its own request.
    const own = new URL(a.page.url()).searchParams.get('interaction');
    const resumed: string[] = [];
    a.page.on('request', (request) => {
      const { pathname } = new URL(request.url());
      if (pathname.startsWith('/oauth2/authorize/')) resumed.push(pathname);
    });
    await a.page.bringToFront();
    await a.page.reload();
    await passwordField(a.page).waitFor();
    await enterPassword(a.page, PASSWORD);
    await a.page.waitForURL(`${rpBase}/callback?**`);
    expect(await a.page.locator('#email').innerText()).toBe(email);
    // The sign-in's Done resumes its own request (then its consent step's, if any).
    expect(resumed[0]).toBe(`/oauth2/authorize/${own}`);

    await switchBackTo(b.page);
    await b.page.waitForURL(`${rpBase}/callback?**`);
    expect(await b.page.locator('#email').innerText()).toBe(email);
  });
});
