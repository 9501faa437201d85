import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { lockoutPolicy, recordFailure } from '../../src/login/lockout.ts';
import { createAccount } from '../fixtures/accounts.ts';
import { useBrowserHarness } from './harness.ts';
import { signInAsOperator } from './operator-session.ts';
import { t } from './texts.ts';

/**
 * The console's Accounts page telling the operator what the server knows: a search cut short, a
 * lock that ended before the click, a budget's wait, a pending email change. Real app, real SMTP,
 * real Chromium; texts from the portal's own catalogues.
 */
const h = useBrowserHarness();

let counter = 0;
const unique = (name: string) => `${name}${(counter += 1)}`;

async function search(page: Page, term: string): Promise<void> {
  await page.goto('/admin/accounts');
  await page.getByLabel(t.en('admin.account.search_label'), { exact: true }).fill(term);
  await page.keyboard.press('Enter');
}

const utc = (at: Date) => `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

describe('the accounts search', () => {
  it('says when more accounts may match than it shows, and not when all are shown', async () => {
    const { page } = h;
    await signInAsOperator(h, page.context(), { role: 'support' });
    const crowd = unique('crowd');
    await h.server.ctx.db('accounts').insert(Array.from({ length: 55 }, (_, i) => ({ email: `${crowd}-${i}@example.test`, name: `Crowd ${String(i).padStart(2, '0')}` })));
    const capped = page.getByText(t.en('admin.account.matching_capped', { count: 50 }), { exact: true });

    await search(page, crowd);
    await capped.waitFor();
    expect(await page.locator('.account-row').count()).toBe(50);

    await search(page, `${crowd}-54@`);
    await page.locator('.account-row', { hasText: `${crowd}-54@example.test` }).waitFor();
    expect(await capped.count()).toBe(0);
  });

  it('a search refused for its budget says how long to wait', async () => {
    const { page } = h;
    await signInAsOperator(h, page.context(), { role: 'support' });
    await page.route('**/api/accounts/search/*', (route) =>
      route.fulfill({ status: 429, headers: { 'Retry-After': '40' }, contentType: 'application/json', body: JSON.stringify({ detail: [{ type: 'too_many_requests', msg: 'Too many requests, try again later' }] }) }),
    );
    await search(page, 'anyone');
    await page.getByText(`${t.en('errors.failed_to_load_accounts')}. ${t.en('admin.too_many')} ${t.en('admin.retry_in_seconds_other', { count: 40 })}`, { exact: true }).waitFor();
  });
});

describe('account actions', () => {
  it('Unlock of a lock that ended since the page was loaded says so, and the badge goes', async () => {
    const { page } = h;
    await signInAsOperator(h, page.context(), { role: 'support' });
    const email = `${unique('ended')}@example.test`;
    const id = await createAccount(h.server.ctx.db, { email, name: 'Elsa Ended' });
    const until = new Date(Date.now() + 10 * 60 * 1000);
    await h.server.ctx.db('accounts').where({ id }).update({ locked_until: until });

    await search(page, email);
    const row = page.locator('.account-row', { hasText: email });
    const badge = row.getByText(t.en('admin.account.locked_until', { time: utc(until) }), { exact: true });
    await badge.waitFor();
    // Meanwhile the lock runs out (here: its mirror is moved into the past; the store never had it).
    await h.server.ctx.db('accounts').where({ id }).update({ locked_until: new Date(Date.now() - 1000) });

    await row.getByRole('button', { name: t.en('admin.account.unlock'), exact: true }).click();
    await page.getByRole('dialog', { name: t.en('admin.account.unlock_title') }).getByRole('button', { name: t.en('admin.account.unlock'), exact: true }).click();
    await page.getByText(t.en('admin.account.already_unlocked', { email }), { exact: true }).waitFor();
    await badge.waitFor({ state: 'detached' });
    expect(await row.getByRole('button', { name: t.en('admin.account.unlock'), exact: true }).count()).toBe(0);
    expect(await h.server.ctx.db('audit_events').where({ action: 'operator.account.unlocked', target_account_id: id })).toHaveLength(0);
  });

  it('a locked row says under its badge how the lock began: failures in a row, address and browser', async () => {
    const { page } = h;
    await signInAsOperator(h, page.context(), { role: 'support' });
    const email = `${unique('guessed')}@example.test`;
    const accountId = await createAccount(h.server.ctx.db, { email, name: 'Gun Guessed' });
    const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
    const meta = { accountId, method: 'password', reason: 'invalid_credentials', ip: '203.0.113.7', userAgent: firefox };
    for (let i = 1; i < lockoutPolicy.maxFailures; i += 1) await recordFailure(h.server.ctx, email, meta);
    await recordFailure(h.server.ctx, email, meta).catch(() => {});
    const lockedAt = (await h.server.ctx.db('audit_events').where({ action: 'login.locked', target_account_id: accountId }).first('at')) as { at: Date };

    await search(page, email);
    const row = page.locator('.account-row', { hasText: email });
    const facts = row.getByText(t.en('admin.account.lock_facts_other', { time: utc(lockedAt.at), count: 10, from: '203.0.113.7 (Firefox on Linux)' }), { exact: true });
    await facts.waitFor();

    // Unlocked, the facts go with the badge.
    await row.getByRole('button', { name: t.en('admin.account.unlock'), exact: true }).click();
    await page.getByRole('dialog', { name: t.en('admin.account.unlock_title') }).getByRole('button', { name: t.en('admin.account.unlock'), exact: true }).click();
    await page.getByText(t.en('admin.account.unlocked'), { exact: true }).waitFor();
    await facts.waitFor({ state: 'detached' });
  });

  it('a reset mail refused for its budget says the reset mails’ limit was reached and how long to wait', async () => {
    const { page } = h;
    await signInAsOperator(h, page.context(), { role: 'support' });
    const email = `${unique('limited')}@example.test`;
    await createAccount(h.server.ctx.db, { email, name: 'Lisa Limited' });
    await page.route('**/api/accounts/*/reset-password', (route) =>
      route.fulfill({ status: 429, headers: { 'Retry-After': '808' }, contentType: 'application/json', body: JSON.stringify({ detail: [{ type: 'too_many_requests', msg: 'Too many requests, try again later' }] }) }),
    );
    await search(page, email);
    await page.locator('.account-row', { hasText: email }).getByRole('button', { name: t.en('admin.account.reset_password'), exact: true }).click();
    const expected = `${t.en('errors.failed_to_send_reset_email')}. ${t.en('admin.account.reset_limit')} ${t.en('admin.retry_in_minutes_other', { count: 14 })}`;
    await page.getByText(expected, { exact: true }).waitFor();
  });
});

describe('a pending email change', () => {
  it('shows on the row with its link’s end; the dialog offers Withdraw only while one waits', async () => {
    const { page } = h;
    await signInAsOperator(h, page.context(), { name: 'Ada Admin' });
    const email = `${unique('mover')}@old.example.test`;
    const newEmail = `${unique('mover')}@new.example.test`;
    await createAccount(h.server.ctx.db, { email, name: 'Maja Mover' });

    await search(page, email);
    const row = page.locator('.account-row', { hasText: email });
    const open = row.getByRole('button', { name: t.en('admin.email_change.open'), exact: true });
    const dialog = page.getByRole('dialog', { name: t.en('admin.email_change.title') });
    const withdraw = dialog.getByRole('button', { name: t.en('admin.email_change.withdraw'), exact: true });
    // The footer's Close, not the title bar's ×, which is named Close too.
    const close = dialog.locator('.modal-foot').getByRole('button', { name: t.en('admin.close'), exact: true });
    const waiting = row.getByText(t.en('admin.email_change.pending_label'), { exact: true });

    // Nothing waits: no Withdraw.
    await open.click();
    await dialog.getByLabel(t.en('admin.email_change.new_email'), { exact: true }).waitFor();
    expect(await withdraw.count()).toBe(0);
    expect(await waiting.count()).toBe(0);

    const asked = Date.now();
    await dialog.getByLabel(t.en('admin.email_change.new_email'), { exact: true }).fill(newEmail);
    await page.keyboard.press('Enter');
    await dialog.getByText(t.en('admin.email_change.sent', { email: newEmail }), { exact: true }).waitFor();
    await close.click();

    // The row says where the account is being moved, until when (an hour from the request).
    await waiting.waitFor();
    const shown = (await row.locator('dd', { hasText: newEmail }).textContent()) ?? '';
    const end = /(\d{4}-\d{2}-\d{2} \d{2}:\d{2}) UTC/.exec(shown)?.[1];
    expect(shown).toBe(t.en('admin.email_change.pending', { email: newEmail, time: `${end} UTC` }));
    expect(Math.abs(Date.parse(`${end!.replace(' ', 'T')}:00Z`) - (asked + 3600 * 1000))).toBeLessThan(2 * 60 * 1000);
    await h.shot('admin-account-email-change-pending');

    // Opened later: the form names the change, and offers to withdraw it.
    await open.click();
    await dialog.getByText(t.en('admin.email_change.pending_explain', { email: newEmail, time: `${end} UTC` }), { exact: true }).waitFor();
    await withdraw.click();
    await dialog.getByText(t.en('admin.email_change.withdrawn', { email: newEmail }), { exact: true }).waitFor();
    await close.click();
    await waiting.waitFor({ state: 'detached' });

    await open.click();
    await dialog.getByLabel(t.en('admin.email_change.new_email'), { exact: true }).waitFor();
    expect(await withdraw.count()).toBe(0);
  });
});
