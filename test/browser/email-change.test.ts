import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createPendingEmailChange } from '../../src/accounts/pending-email-change.ts';
import { createAccount } from '../fixtures/accounts.ts';
import { useBrowserHarness } from './harness.ts';
import { signInAsOperator } from './operator-session.ts';
import { t } from './texts.ts';

/**
 * An admin changes a person's email address in the console; the person opens the link mailed to
 * the new address in Chromium and confirms. Real app, real SMTP, real Chromium.
 */
const h = useBrowserHarness();

/** An admin whose portal session (with a second factor, just now) is made in the store (operator-session.ts). */
async function signInAsAdmin(page: Page): Promise<void> {
  await signInAsOperator(h, page.context(), { name: 'Ada Admin' });
}

describe('changing an account’s email address', () => {
  it('the admin asks in the console, the person confirms from the mailed link; the link works once', async () => {
    const { page } = h;
    await signInAsAdmin(page);
    const email = 'karin.flytt@old.example.test';
    const newEmail = 'karin.flytt@new.example.test';
    const accountId = await createAccount(h.server.ctx.db, { email, name: 'Karin Flytt', password: 'Correct-Horse-42!' });
    await createAccount(h.server.ctx.db, { email: 'someone.else@new.example.test', name: 'Someone Else' });

    await page.goto('/admin/accounts');
    await page.getByLabel(t.en('admin.account.search_label'), { exact: true }).fill(email);
    await page.keyboard.press('Enter');
    const row = page.locator('.account-row', { hasText: email });
    await row.getByRole('button', { name: t.en('admin.email_change.open'), exact: true }).click();
    const dialog = page.getByRole('dialog', { name: t.en('admin.email_change.title') });
    const field = dialog.getByLabel(t.en('admin.email_change.new_email'), { exact: true });
    expect(await field.evaluate((input) => input === document.activeElement)).toBe(true);

    // A taken address is refused in the dialog, which keeps what was typed.
    await field.fill('someone.else@new.example.test');
    await dialog.getByRole('button', { name: t.en('admin.email_change.submit'), exact: true }).click();
    await dialog.getByText(t.en('admin.email_change.taken'), { exact: true }).waitFor();
    expect(await field.inputValue()).toBe('someone.else@new.example.test');
    // And the focus is back in the field, for the keyboard to correct it there.
    await expect.poll(() => field.evaluate((input) => input === document.activeElement)).toBe(true);

    await field.fill(newEmail);
    await page.keyboard.press('Enter');
    await dialog.getByText(t.en('admin.email_change.sent', { email: newEmail }), { exact: true }).waitFor();
    await h.shot('admin-email-change-sent');

    const mail = await h.mail.waitFor(newEmail, (m) => m.text.includes('/login/confirm-email/'));
    const link = /https?:\/\/\S+\/login\/confirm-email\/[A-Za-z0-9_-]+/.exec(mail.text)?.[0];
    expect(link?.startsWith(`${h.base}/login/confirm-email/`)).toBe(true);

    // The person's own browser: opening the link changes nothing until Confirm is pressed.
    const person = await h.browser.newContext({ baseURL: h.base, locale: 'en-US' });
    try {
      const tab = await person.newPage();
      await tab.goto(link!);
      const confirm = tab.getByRole('button', { name: t.en('confirm_email.submit'), exact: true });
      await confirm.waitFor();
      expect(await h.server.ctx.db('accounts').where({ id: accountId }).first('email')).toEqual({ email });
      await confirm.click();
      await tab.getByText(t.en('confirm_email.done', { email: newEmail }), { exact: true }).waitFor();
      expect(await h.server.ctx.db('accounts').where({ id: accountId }).first('email', 'email_verified')).toEqual({ email: newEmail, email_verified: true });
      await h.shot('confirm-email-done', tab);

      // Opened again, the link is spent.
      await tab.goto(link!);
      await tab.getByRole('button', { name: t.en('confirm_email.submit'), exact: true }).click();
      await tab.getByText(t.en('errors.invalid_or_expired_token'), { exact: true }).waitFor();

      await tab.goto(link!);
      await tab.getByText(t.en('confirm_email.intro'), { exact: true }).waitFor();
      await tab.getByRole('link', { name: t.en('app.back_to_login'), exact: true }).click();
      await tab.waitForURL((url) => url.pathname === '/login');
    } finally {
      await person.close();
    }
  });

  it('the admin spots a typo right after sending and withdraws the change from the dialog; the mailed link no longer confirms', async () => {
    const { page } = h;
    await signInAsAdmin(page);
    const email = 'tore.typo@old.example.test';
    const typo = 'tore.typo@nwe.example.test';
    const accountId = await createAccount(h.server.ctx.db, { email, name: 'Tore Typo' });

    await page.goto('/admin/accounts');
    await page.getByLabel(t.en('admin.account.search_label'), { exact: true }).fill(email);
    await page.keyboard.press('Enter');
    await page.locator('.account-row', { hasText: email }).getByRole('button', { name: t.en('admin.email_change.open'), exact: true }).click();
    const dialog = page.getByRole('dialog', { name: t.en('admin.email_change.title') });
    await dialog.getByLabel(t.en('admin.email_change.new_email'), { exact: true }).fill(typo);
    await page.keyboard.press('Enter');
    await dialog.getByText(t.en('admin.email_change.sent', { email: typo }), { exact: true }).waitFor();
    const mail = await h.mail.waitFor(typo, (m) => m.text.includes('/login/confirm-email/'));
    const token = /\/login\/confirm-email\/([A-Za-z0-9_-]+)/.exec(mail.text)?.[1];

    await dialog.getByRole('button', { name: t.en('admin.email_change.withdraw_short'), exact: true }).click();
    await dialog.getByText(t.en('admin.email_change.withdrawn', { email: typo }), { exact: true }).waitFor();
    const close = dialog.locator('.modal-foot').getByRole('button', { name: t.en('admin.close'), exact: true });
    expect(await close.evaluate((button) => button === document.activeElement)).toBe(true);
    await h.shot('admin-email-change-withdrawn');

    const confirm = await fetch(`${h.base}/auth/email-change/confirm`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token }) });
    expect(confirm.status).toBe(406);
    expect(await h.server.ctx.db('accounts').where({ id: accountId }).first('email')).toEqual({ email });
  });

  it('a withdrawal answered "already made" says the account has the new address, and the row shows it', async () => {
    const { page } = h;
    await signInAsAdmin(page);
    const email = 'maja.made@old.example.test';
    const newEmail = 'maja.made@new.example.test';
    const accountId = await createAccount(h.server.ctx.db, { email, name: 'Maja Made' });
    const operatorId = await createAccount(h.server.ctx.db, { email: 'ada.made@example.test', name: 'Ada Made' });
    await createPendingEmailChange(h.server.ctx, { accountId, previousEmail: email, newEmail, operatorId });
    // The server's side (a confirmation reported failed that went through, finished by the
    // withdrawal) is test/admin/email-change-lost-commit.test.ts; here, what the dialog makes of it.
    await page.route(`**/api/accounts/${accountId}/email-change`, (route) =>
      route.request().method() === 'DELETE'
        ? route.fulfill({ status: 409, contentType: 'application/json', body: JSON.stringify({ detail: [{ type: 'account/email-change-made', msg: 'The change was already made' }] }) })
        : route.continue(),
    );

    await page.goto('/admin/accounts');
    await page.getByLabel(t.en('admin.account.search_label'), { exact: true }).fill(email);
    await page.keyboard.press('Enter');
    await page.locator('.account-row', { hasText: email }).getByRole('button', { name: t.en('admin.email_change.open'), exact: true }).click();
    const dialog = page.getByRole('dialog', { name: t.en('admin.email_change.title') });
    await dialog.getByRole('button', { name: t.en('admin.email_change.withdraw'), exact: true }).click();
    await dialog.getByText(t.en('admin.email_change.already_made', { email: newEmail }), { exact: true }).waitFor();
    expect(await dialog.getByRole('alert').count()).toBe(0);
    await dialog.locator('.modal-foot').getByRole('button', { name: t.en('admin.close'), exact: true }).click();
    await page.locator('.account-row', { hasText: newEmail }).waitFor();
    expect(await page.locator('.account-row', { hasText: email }).count()).toBe(0);
  });

  it('a confirmation that got no good answer (503) keeps the page and the token and offers Try again, which confirms', async () => {
    const { page } = h;
    const email = 'lisa.retry@old.example.test';
    const newEmail = 'lisa.retry@new.example.test';
    const accountId = await createAccount(h.server.ctx.db, { email, name: 'Lisa Retry' });
    // Asked for by an admin: the confirmation refuses a change whose requester is no longer one.
    const operatorId = await createAccount(h.server.ctx.db, { email: 'ada.requester@example.test', name: 'Ada Requester' });
    await h.server.ctx.db('operator_roles').insert({ account_id: operatorId, role: 'admin' });
    const { token } = await createPendingEmailChange(h.server.ctx, { accountId, previousEmail: email, newEmail, operatorId });

    await page.route('**/auth/email-change/confirm', (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: '{"detail":[{"type":"service_unavailable","msg":"Service temporarily unavailable"}]}' }),
      { times: 1 },
    );
    await page.goto(`/login/confirm-email/${token}`);
    await page.getByRole('button', { name: t.en('confirm_email.submit'), exact: true }).click();
    const retry = page.getByRole('button', { name: t.en('app.retry'), exact: true });
    await retry.waitFor();
    expect(await retry.evaluate((button) => button === document.activeElement)).toBe(true);
    expect(await h.server.ctx.db('accounts').where({ id: accountId }).first('email')).toEqual({ email });
    await retry.click();
    await page.getByText(t.en('confirm_email.done', { email: newEmail }), { exact: true }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/login/confirm-email/${token}`);
  });
});
