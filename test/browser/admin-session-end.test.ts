import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createPortalSession, listPortalSessions } from '../../src/session/portal-session.ts';
import { createAccount } from '../fixtures/accounts.ts';
import { useBrowserHarness } from './harness.ts';
import { signInAsOperator } from './operator-session.ts';
import { t } from './texts.ts';

/**
 * "I left myself signed in on the library computer": the operator opens the person's tokens view,
 * finds that browser's row by its address and browser, and ends that one session through the
 * confirmation, by keyboard; the row goes and the person's other session stays.
 */
const h = useBrowserHarness();

let counter = 0;
const unique = (name: string) => `${name}${(counter += 1)}`;

const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const kiosk = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

const endButton = (within: Page | Locator) => within.getByRole('button', { name: t.en('admin.tokens_page.end_session'), exact: true });

/** A person signed in at home and on the library computer, each a Nyckel session of its own. */
async function personWithTwoSessions(): Promise<{ email: string; accountId: string }> {
  const email = `${unique('reader')}@example.test`;
  const accountId = await createAccount(h.server.ctx.db, { email, name: `Lova ${unique('Reader')}` });
  const base = { account_id: accountId, email, amr: ['pwd'], auth_time: Math.floor(h.server.ctx.now().getTime() / 1000), persistent: true };
  await createPortalSession(h.server.ctx, { ...base, ip: '192.0.2.10', user_agent: firefox });
  await createPortalSession(h.server.ctx, { ...base, ip: '203.0.113.99', user_agent: kiosk });
  return { email, accountId };
}

describe('ending a session from the tokens view', () => {
  it('a support operator ends the library computer’s session through the confirmation: its row goes, the one at home stays', async () => {
    const { page } = h;
    await signInAsOperator(h, page.context(), { role: 'support' });
    const { email, accountId } = await personWithTwoSessions();

    await page.goto(`/admin/tokens/${encodeURIComponent(email)}/${accountId}?back=accounts`);
    const rows = page.locator('tbody tr');
    const library = rows.filter({ hasText: '203.0.113.99' });
    const home = rows.filter({ hasText: '192.0.2.10' });
    await library.waitFor();
    await home.waitFor();
    expect(await endButton(page).count()).toBe(2);

    // By keyboard: the button opens the dialog, which starts on Cancel (a warning), so Enter alone
    // would end nothing; the confirmation is a Tab away.
    await endButton(library).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: t.en('admin.tokens_page.end_session_title') });
    await dialog.getByText(
      t.en('admin.tokens_page.end_session_confirm', { email, session: `Chrome on Windows, ${t.en('admin.tokens_page.ip', { ip: '203.0.113.99' })}` }),
      { exact: true },
    ).waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(t.en('app.cancel'));
    await h.shot('admin-session-end-confirm');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(t.en('admin.tokens_page.end_session'));
    await page.keyboard.press('Enter');

    await page.getByText(t.en('admin.tokens_page.session_ended', { applications: 0 }), { exact: true }).waitFor();
    await library.waitFor({ state: 'detached' });
    await home.waitFor();
    expect(await endButton(page).count()).toBe(1);
    // The heading holds the focus the removed button had.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('admin-page-title');
    const left = await listPortalSessions(h.server.ctx, accountId);
    expect(left.map((session) => session.ip)).toEqual(['192.0.2.10']);
    await h.shot('admin-session-end-done');
  });

  it("a session ended meanwhile: the row goes all the same, and the page says it had ended", async () => {
    const { page } = h;
    await signInAsOperator(h, page.context());
    const { email, accountId } = await personWithTwoSessions();

    await page.goto(`/admin/tokens/${encodeURIComponent(email)}/${accountId}`);
    const library = page.locator('tbody tr').filter({ hasText: '203.0.113.99' });
    await library.waitFor();
    // The person signs that browser out from home before the operator confirms.
    const [gone] = (await listPortalSessions(h.server.ctx, accountId)).filter((session) => session.ip === '203.0.113.99');
    await h.server.ctx.store.del(`session:${gone!.id}`);

    await endButton(library).click();
    await page.getByRole('dialog', { name: t.en('admin.tokens_page.end_session_title') }).getByRole('button', { name: t.en('admin.tokens_page.end_session'), exact: true }).click();
    await page.getByText(t.en('admin.tokens_page.session_already_ended'), { exact: true }).waitFor();
    await library.waitFor({ state: 'detached' });
  });

  it("refused: support on an operator's account is told why, and the row stays", async () => {
    const { page } = h;
    await signInAsOperator(h, page.context(), { role: 'support' });
    const { email, accountId } = await personWithTwoSessions();
    await h.server.ctx.db('operator_roles').insert({ account_id: accountId, role: 'support' });

    await page.goto(`/admin/tokens/${encodeURIComponent(email)}/${accountId}`);
    const library = page.locator('tbody tr').filter({ hasText: '203.0.113.99' });
    await endButton(library).click();
    await page.getByRole('dialog', { name: t.en('admin.tokens_page.end_session_title') }).getByRole('button', { name: t.en('admin.tokens_page.end_session'), exact: true }).click();
    await page.getByRole('alert').getByText(`${t.en('admin.tokens_page.end_session_failed')}. ${t.en('admin.role_refused')}`, { exact: true }).waitFor();
    await library.waitFor();
    expect(await listPortalSessions(h.server.ctx, accountId)).toHaveLength(2);
  });
});
