import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createPortalSession } from '../../src/session/portal-session.ts';
import { createAccount } from '../fixtures/accounts.ts';
import { useBrowserHarness } from './harness.ts';
import { signInAsOperator } from './operator-session.ts';
import { t } from './texts.ts';

/**
 * The console's tokens page as an operator handling "someone else is in my account" uses it: it
 * names the account the server has for the id, and tells one sign-in session from another.
 */
const h = useBrowserHarness();

let counter = 0;
const unique = (name: string) => `${name}${(counter += 1)}`;

const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const iphone = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

const heading = (page: Page, key: string) => page.getByRole('heading', { name: t.en(key), exact: true });
const navLink = (page: Page, key: string) => page.getByRole('navigation').getByRole('link', { name: t.en(key), exact: true });

async function person(): Promise<{ email: string; accountId: string }> {
  const email = `${unique('holder')}@example.test`;
  return { email, accountId: await createAccount(h.server.ctx.db, { email, name: `Hedda ${unique('Holder')}` }) };
}

describe('tokens page', () => {
  it("shows the account's own address, not the one a crafted link puts in the URL, and puts the real one in the URL", async () => {
    const { page } = h;
    await signInAsOperator(h, page.context());
    const { email, accountId } = await person();
    const crafted = `${unique('someone.else')}@example.test`;

    await page.goto(`/admin/tokens/${encodeURIComponent(crafted)}/${accountId}?back=accounts`);
    await heading(page, 'admin.tokens').waitFor();
    await page.getByText(t.en('admin.tokens_for', { email, id: accountId }), { exact: true }).waitFor();
    await page.waitForURL((url) => url.pathname === `/admin/tokens/${encodeURIComponent(email)}/${accountId}` && url.search === '?back=accounts');
    expect(await page.locator('body').innerText()).not.toContain(crafted);
    // Still the way back it came by.
    await page.getByRole('link', { name: t.en('admin.tokens_page.back_accounts'), exact: true }).waitFor();
  });

  it('names no account until the server has said which, and none for an id without one', async () => {
    const { page } = h;
    await signInAsOperator(h, page.context());
    const crafted = `${unique('nobody')}@example.test`;
    await page.goto(`/admin/tokens/${encodeURIComponent(crafted)}/22222222-2222-4222-8222-222222222222`);
    await page.getByText(t.en('admin.tokens_page.failed'), { exact: true }).waitFor();
    expect(await page.locator('body').innerText()).not.toContain(crafted);
  });

  it("tells the person's session from a stranger's: sign-in time, browser, address, last use", async () => {
    const { page } = h;
    await signInAsOperator(h, page.context());
    const { email, accountId } = await person();
    const base = { account_id: accountId, email, persistent: true };
    // Within the 12 hours a session lasts, on whole minutes as the page shows them.
    const minute = Math.floor(h.server.ctx.now().getTime() / 60_000) * 60;
    const [early, late] = [minute - 3 * 3600, minute - 20 * 60];
    const utc = (seconds: number) => `${new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
    await createPortalSession(h.server.ctx, { ...base, amr: ['pwd'], auth_time: early, ip: '192.0.2.10', user_agent: firefox });
    await createPortalSession(h.server.ctx, { ...base, amr: ['otp'], auth_time: late, ip: '203.0.113.99', user_agent: iphone });

    await page.goto(`/admin/tokens/${encodeURIComponent(email)}/${accountId}?back=accounts`);
    const rows = page.locator('tbody tr');
    await rows.nth(1).waitFor();
    const own = rows.filter({ hasText: '192.0.2.10' });
    const stranger = rows.filter({ hasText: '203.0.113.99' });
    await own.getByText(t.en('profile.sessions.signed_in', { when: utc(early) }), { exact: true }).waitFor();
    await own.getByText(t.en('profile.devices.name', { browser: 'Firefox', os: 'Linux' }), { exact: true }).waitFor();
    await own.getByText(t.en('admin.tokens_page.ip', { ip: '192.0.2.10' }), { exact: true }).waitFor();
    await stranger.getByText(t.en('profile.sessions.signed_in', { when: utc(late) }), { exact: true }).waitFor();
    await stranger.getByText(t.en('profile.devices.name', { browser: 'Safari', os: 'iPhone' }), { exact: true }).waitFor();
    expect(await stranger.getByText(t.en('profile.devices.last_used', { when: '' }).trim()).count()).toBe(1);
    await h.shot('admin-tokens-sessions');
  });

  it('highlights the section the page was reached from: Accounts from an account row, Tenants from a tenant user', async () => {
    const { page } = h;
    await signInAsOperator(h, page.context());
    const { email, accountId } = await person();

    await page.goto(`/admin/tokens/${encodeURIComponent(email)}/${accountId}?back=accounts`);
    await page.getByText(t.en('admin.tokens_for', { email, id: accountId }), { exact: true }).waitFor();
    expect(await navLink(page, 'admin.accounts').getAttribute('aria-current')).toBe('page');
    expect(await navLink(page, 'admin.tenants').getAttribute('aria-current')).toBeNull();

    await page.goto(`/admin/tokens/${encodeURIComponent(email)}/${accountId}`);
    await page.getByText(t.en('admin.tokens_for', { email, id: accountId }), { exact: true }).waitFor();
    expect(await navLink(page, 'admin.tenants').getAttribute('aria-current')).toBe('page');
    expect(await navLink(page, 'admin.accounts').getAttribute('aria-current')).toBeNull();
  });
});
