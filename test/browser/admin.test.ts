import { generate } from 'otplib';
import type { Page, Route } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createPortalSession, listPortalSessions } from '../../src/session/portal-session.ts';
import { createAccount, createTenant, grantAccess } from '../fixtures/accounts.ts';
import { BrowserLike } from '../helpers/browser-like.ts';
import { failWhileOn, useBrowserHarness } from './harness.ts';
import { addPortalCookie, signInAsOperator as signOperatorIn } from './operator-session.ts';
import { t } from './texts.ts';

/**
 * The operator console as an operator uses it: real app, real SMTP, real Chromium. Texts come from
 * the portal's own catalogues, so a copy change moves the test with it.
 */
const h = useBrowserHarness();
const PASSWORD = 'Correct-Horse-42!';

let counter = 0;
const unique = (name: string) => `${name}${(counter += 1)}`;

/** An operator (admin unless told) signed in with a second factor (operator-session.ts); `amr: ['pwd']` for a password-only sign-in. */
function signInAsOperator(page: Page, amr = ['pwd', 'otp', 'mfa'], role: 'admin' | 'support' = 'admin'): Promise<{ email: string; accountId: string }> {
  return signOperatorIn(h, page.context(), { amr, role, password: PASSWORD });
}

const heading = (page: Page, key: string) => page.getByRole('heading', { name: t.en(key), exact: true });
const signInLink = (page: Page) => page.getByRole('link', { name: t.en('admin.sign_in'), exact: true });

describe('console access', () => {
  it('an anonymous visit to /admin/accounts?x=1 lands on /admin?from=%2Fadmin%2Faccounts%3Fx%3D1', async () => {
    const { page } = h;
    await page.goto('/admin/accounts?x=1');
    await page.waitForURL((url) => url.pathname === '/admin' && url.search !== '');
    const url = new URL(page.url());
    expect(url.search).toBe('?from=%2Fadmin%2Faccounts%3Fx%3D1');
    await heading(page, 'admin.signin_required').waitFor();
    await page.getByText(t.en('admin.signin_body'), { exact: true }).waitFor();
    expect(await signInLink(page).getAttribute('href')).toBe('/login?return_to=%2Fadmin%2Faccounts%3Fx%3D1');
    // "Try again" returns to where the visitor was.
    expect(await page.getByRole('link', { name: t.en('admin.retry'), exact: true }).getAttribute('href')).toBe('/admin/accounts?x=1');
    await h.shot('admin-signin-required');
  });

  it('a signed-in person without an operator role is sent to the same notice', async () => {
    const { page } = h;
    const email = `${unique('person')}@example.test`;
    const accountId = await createAccount(h.server.ctx.db, { email });
    const session = await createPortalSession(h.server.ctx, { account_id: accountId, email, amr: ['pwd', 'mfa'], auth_time: 0, ip: null, user_agent: null });
    await addPortalCookie(h, h.context, session.id);

    await page.goto('/admin/invoice');
    await page.waitForURL((url) => url.pathname === '/admin' && url.searchParams.get('from') === '/admin/invoice');
    await heading(page, 'admin.signin_required').waitFor();
    await page.getByText(t.en('admin.signin_body'), { exact: true }).waitFor();
    expect(await signInLink(page).getAttribute('href')).toBe('/login?return_to=%2Fadmin%2Finvoice');
  });

  it('an operator signed in with the password alone is told a second factor is needed, and signs in with it back to the page', async () => {
    const { page } = h;
    const { email, accountId } = await signInAsOperator(page, ['pwd']);
    const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
    await h.server.ctx.db('credentials').insert({ account_id: accountId, type: 'totp', secret: h.server.ctx.secretBox.seal(secret) });

    await page.goto('/admin/invoice');
    await page.waitForURL((url) => url.pathname === '/admin' && url.searchParams.get('second_factor') === '1');
    expect(new URL(page.url()).searchParams.get('from')).toBe('/admin/invoice');
    await heading(page, 'admin.signin_required').waitFor();
    await page.getByText(t.en('admin.signin_second_factor'), { exact: true }).waitFor();
    expect(await page.getByText(t.en('admin.signin_body'), { exact: true }).count()).toBe(0);
    expect(await signInLink(page).getAttribute('href')).toBe('/login?second_factor=1&return_to=%2Fadmin%2Finvoice');
    await h.shot('admin-signin-second-factor');

    // /login says what to do (no passkey on this account: password, then the code) and returns here.
    await signInLink(page).click();
    await page.getByLabel(t.en('login.start.email'), { exact: true }).fill(email);
    await page.getByRole('button', { name: t.en('login.start.submit'), exact: true }).click();
    await page.getByText(t.en('login.credentials.second_factor'), { exact: true }).waitFor();
    await page.getByLabel(t.en('login.credentials.password'), { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: t.en('login.credentials.submit'), exact: true }).click();
    const step = Math.floor(h.server.ctx.now().getTime() / 30_000);
    await page.getByLabel(t.en('login.mfa.code'), { exact: true }).fill(await generate({ secret, epoch: step * 30 }));
    await page.getByRole('button', { name: t.en('login.mfa.submit'), exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/admin/invoice');
    await heading(page, 'admin.invoice').waitFor();
  });
});

describe('accounts', () => {
  it("says why an operator's last authenticator app stays, and keeps it", async () => {
    const { page } = h;
    await signInAsOperator(page);
    const email = `${unique('colleague')}@example.test`;
    const accountId = await createAccount(h.server.ctx.db, { email, name: `Cecilia ${unique('Colleague')}` });
    await h.server.ctx.db('operator_roles').insert({ account_id: accountId, role: 'support' });
    await h.server.ctx.db('credentials').insert({ account_id: accountId, type: 'totp', secret: h.server.ctx.secretBox.seal('JBSWY3DPEHPK3PXP') });

    await page.goto('/admin/accounts');
    await page.getByLabel(t.en('admin.account.search_label'), { exact: true }).fill(email);
    await page.keyboard.press('Enter');
    const row = page.locator('.account-row', { hasText: email });
    await row.getByRole('button', { name: t.en('admin.credential.delete_named', { credential: t.en('admin.credential.totp') }) }).click();
    const confirm = page.getByRole('dialog', { name: t.en('admin.credential.delete_title') });
    await confirm.getByRole('button', { name: t.en('admin.credential.delete'), exact: true }).click();
    await page.getByText(t.en('admin.credential.operator_second_factor'), { exact: true }).waitFor();
    expect(await h.server.ctx.db('credentials').where({ account_id: accountId, type: 'totp' })).toHaveLength(1);
  });

  it('searches, sends a reset email, finds the link in the reset-links modal and copies it', async () => {
    const { page, context } = h;
    await signInAsOperator(page);
    const name = `Anna ${unique('Resetson')}`;
    const email = `${name.replace(' ', '.').toLowerCase()}@example.test`;
    const accountId = await createAccount(h.server.ctx.db, { email, name, password: 'Correct-Horse-42!' });
    const tenantName = `Acme ${unique('Kund')}`;
    const tenantId = await createTenant(h.server.ctx.db, unique('acmekund'), { name: tenantName });
    await grantAccess(h.server.ctx.db, accountId, tenantId);
    await h.server.ctx.db('credentials').insert({ account_id: accountId, type: 'oidc', provider: 'accounts.google.com', subject: unique('google-sub') });

    await page.goto('/admin/accounts');
    await heading(page, 'admin.accounts').waitFor();
    const search = page.getByLabel(t.en('admin.account.search_label'), { exact: true });
    // The search has focus on arrival; the term is required.
    expect(await search.evaluate((input) => input === document.activeElement)).toBe(true);
    expect(await page.getByRole('button', { name: t.en('admin.search'), exact: true }).isDisabled()).toBe(true);
    await page.keyboard.type(name);
    await page.keyboard.press('Enter');

    const row = page.locator('.account-row', { hasText: email });
    await row.waitFor();
    expect(await page.locator('.account-row').count()).toBe(1);
    await row.getByText(t.en('admin.account.kind_user'), { exact: true }).waitFor();
    await row.getByText(accountId, { exact: true }).waitFor();
    await row.getByText(t.en('admin.last_login.never'), { exact: true }).waitFor();
    expect(await row.locator('.chip.tenant.active', { hasText: tenantName }).count()).toBe(1);
    // The password of a user account cannot be deleted; the Google credential can.
    expect(await row.getByRole('button', { name: t.en('admin.credential.delete_named', { credential: t.en('admin.credential.password') }) }).count()).toBe(0);
    await h.shot('admin-accounts');

    await row.getByRole('button', { name: t.en('admin.credential.delete_named', { credential: t.en('provider.google') }) }).click();
    const confirm = page.getByRole('dialog', { name: t.en('admin.credential.delete_title') });
    await confirm.waitFor();
    await h.shot('admin-delete-credential-modal');
    await confirm.getByRole('button', { name: t.en('admin.credential.delete'), exact: true }).click();
    await page.getByText(t.en('success.credential_deleted'), { exact: true }).waitFor();
    expect(await h.server.ctx.db('credentials').where({ account_id: accountId, type: 'oidc' }).count('* as n').first()).toMatchObject({ n: 0 });

    await row.getByRole('button', { name: t.en('admin.account.reset_password'), exact: true }).click();
    await page.getByText(t.en('success.reset_email_sent'), { exact: true }).waitFor();
    await h.mail.waitFor(email, (mail) => mail.text.includes('/login/set-password/'));

    await page.getByRole('button', { name: t.en('admin.reset_links.open'), exact: true }).click();
    const modal = page.getByRole('dialog', { name: t.en('admin.reset_links.title') });
    await modal.waitFor();
    const filter = modal.getByLabel(t.en('admin.reset_links.filter'), { exact: true });
    expect(await filter.evaluate((input) => input === document.activeElement)).toBe(true);
    await filter.fill(email.toUpperCase());
    const item = modal.locator('.reset-links li', { hasText: email });
    await item.waitFor();
    expect(await modal.locator('.reset-links li').count()).toBe(1);
    const link = (await item.locator('.reset-link').innerText()).trim();
    expect(link.startsWith(`${h.base}/login/set-password/`)).toBe(true);

    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.base });
    await item.getByRole('button', { name: t.en('admin.reset_links.copy_for', { email }) }).click();
    await modal.getByText(t.en('success.reset_link_copied'), { exact: true }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
    await h.shot('admin-reset-links');

    // Escape closes the modal; Escape in the search clears the results.
    await page.keyboard.press('Escape');
    await modal.waitFor({ state: 'hidden' });
    await search.focus();
    await page.keyboard.press('Escape');
    expect(await search.inputValue()).toBe('');
    await page.locator('.account-row').first().waitFor({ state: 'detached' });
  });

  it("Access tokens on a row opens the person's tokens page (not the sign-in notice), and its back link returns to Accounts", async () => {
    const { page } = h;
    await signInAsOperator(page);
    const email = `${unique('tokenholder')}@example.test`;
    const accountId = await createAccount(h.server.ctx.db, { email, name: `Tora ${unique('Tokens')}` });

    await page.goto('/admin/accounts');
    await page.getByLabel(t.en('admin.account.search_label'), { exact: true }).fill(email);
    await page.keyboard.press('Enter');
    const row = page.locator('.account-row', { hasText: email });
    await row.getByRole('link', { name: t.en('admin.tenant.tokens_of', { email }), exact: true }).click();

    await heading(page, 'admin.tokens').waitFor();
    await page.getByText(t.en('admin.tokens_for', { email, id: accountId }), { exact: true }).waitFor();
    await page.getByText(t.en('admin.tokens_page.empty'), { exact: true }).waitFor();
    expect(await heading(page, 'admin.signin_required').count()).toBe(0);
    expect(new URL(page.url()).pathname).toBe(`/admin/tokens/${encodeURIComponent(email)}/${accountId}`);
    // Opened afresh (a reload, a shared link) it is the same page, still leading back to Accounts.
    await page.reload();
    await heading(page, 'admin.tokens').waitFor();
    await page.getByRole('link', { name: t.en('admin.tokens_page.back_accounts'), exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/admin/accounts' && url.search === '');
    await heading(page, 'admin.accounts').waitFor();

    // A link saved before the parameter was renamed opens the page too: `from` means the sign-in
    // notice only on /admin itself.
    await page.goto(`/admin/tokens/${encodeURIComponent(email)}/${accountId}?from=accounts`);
    await page.getByText(t.en('admin.tokens_for', { email, id: accountId }), { exact: true }).waitFor();
    expect(await heading(page, 'admin.signin_required').count()).toBe(0);
  });

  it('a support operator sees no reset-links button (the links are admin only) but still sends the reset email', async () => {
    const { page } = h;
    await signInAsOperator(page, undefined, 'support');
    const name = `Sune ${unique('Supportson')}`;
    const email = `${name.replace(' ', '.').toLowerCase()}@example.test`;
    await createAccount(h.server.ctx.db, { email, name });

    const operator = page.waitForResponse((res) => new URL(res.url()).pathname === '/api/operator');
    await page.goto('/admin/accounts');
    await heading(page, 'admin.accounts').waitFor();
    expect((await operator).status()).toBe(200);
    // Shown while the role is unknown, then hidden once the console knows it is support.
    await page.getByRole('button', { name: t.en('admin.reset_links.open'), exact: true }).waitFor({ state: 'hidden', timeout: 5000 });

    await page.getByLabel(t.en('admin.account.search_label'), { exact: true }).fill(email);
    await page.keyboard.press('Enter');
    const row = page.locator('.account-row', { hasText: email });
    const reset = row.getByRole('button', { name: t.en('admin.account.reset_password'), exact: true });
    await reset.click();
    await page.getByText(t.en('success.reset_email_sent'), { exact: true }).waitFor();
    // The button was disabled while sending, which dropped the focus: it is back on the button.
    await expect.poll(() => reset.evaluate((button) => button === document.activeElement)).toBe(true);
    await h.mail.waitFor(email, (mail) => mail.text.includes('/login/set-password/'));
  });
});

describe('deleting one of two credentials of a kind', () => {
  it('names each by when it was added (a passkey by its name too), shows the deletion busy, and moves the focus to the next chip, then to the row', async () => {
    const { page } = h;
    await signInAsOperator(page);
    const name = `Tove ${unique('Twophones')}`;
    const email = `${unique('twophones')}@example.test`;
    const accountId = await createAccount(h.server.ctx.db, { email, name });
    const seal = (secret: string) => h.server.ctx.secretBox.seal(secret);
    const [oldPhone] = (await h.server.ctx.db('credentials')
      .insert({ account_id: accountId, type: 'totp', secret: seal('JBSWY3DPEHPK3PXP'), created_at: new Date('2025-03-01T14:05:00Z') })
      .returning('id')) as { id: string }[];
    await h.server.ctx.db('credentials').insert({ account_id: accountId, type: 'totp', secret: seal('KRSXG5CTMVRXEZLU'), created_at: new Date('2025-09-12T08:30:00Z') });
    await h.server.ctx.db('credentials').insert({
      account_id: accountId,
      type: 'webauthn',
      subject: unique('passkey-id'),
      public_key: Buffer.from([1, 2, 3]),
      data: JSON.stringify({ name: 'Work laptop' }),
      created_at: new Date('2025-10-01T07:00:00Z'),
    });
    const totp = (time: string) => t.en('admin.credential.added', { credential: t.en('admin.credential.totp'), time });
    const oldName = totp('2025-03-01 14:05 UTC');
    const newName = totp('2025-09-12 08:30 UTC');
    const passkeyName = t.en('admin.credential.added', {
      credential: t.en('admin.credential.named', { kind: t.en('admin.credential.webauthn'), name: 'Work laptop' }),
      time: '2025-10-01 07:00 UTC',
    });

    await page.goto('/admin/accounts');
    await page.getByLabel(t.en('admin.account.search_label'), { exact: true }).fill(email);
    await page.keyboard.press('Enter');
    const row = page.locator('.account-row', { hasText: email });
    const deleteButton = (credential: string) => row.getByRole('button', { name: t.en('admin.credential.delete_named', { credential }), exact: true });
    const focused = (locator: ReturnType<typeof deleteButton>) => locator.evaluate((element) => element === document.activeElement);
    // Three different names: the operator can tell the lost phone's app from the other one.
    await deleteButton(oldName).waitFor();
    await deleteButton(newName).waitFor();
    await deleteButton(passkeyName).waitFor();
    await h.shot('admin-credentials-dated');

    // The DELETE is held until the test lets it through.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let deletes = 0;
    await page.route(`**/api/accounts/${accountId}/credentials/*`, async (route) => {
      deletes += 1;
      await held;
      await route.continue();
    });

    await deleteButton(oldName).click();
    const confirm = page.getByRole('dialog', { name: t.en('admin.credential.delete_title') });
    await confirm.getByText(t.en('admin.credential.delete_confirm', { credential: oldName, email }), { exact: true }).waitFor();
    await confirm.getByRole('button', { name: t.en('admin.credential.delete'), exact: true }).click();
    await confirm.waitFor({ state: 'hidden' });

    // While the call runs the chip is busy and its button disabled: no second deletion can start.
    const busy = deleteButton(oldName);
    await expect.poll(() => busy.getAttribute('aria-busy')).toBe('true');
    expect(await busy.isDisabled()).toBe(true);
    expect(await row.locator('li.chip.credential[aria-busy="true"]').count()).toBe(1);
    await h.shot('admin-credential-deleting');
    await busy.click({ force: true }).catch(() => undefined);
    expect(await confirm.isVisible()).toBe(false);
    expect(deletes).toBe(1);

    release();
    await page.getByText(t.en('success.credential_deleted'), { exact: true }).waitFor();
    await busy.waitFor({ state: 'detached' });
    const remaining = (await h.server.ctx.db('credentials').where({ account_id: accountId }).select('id')) as { id: string }[];
    expect(remaining.map((credential) => credential.id)).not.toContain(oldPhone?.id);
    expect(remaining).toHaveLength(2);
    // The focus went to the next chip's delete button, not to the page.
    await expect.poll(() => focused(deleteButton(newName))).toBe(true);
    await page.unroute(`**/api/accounts/${accountId}/credentials/*`);

    // The next deletion from the keyboard: Tab to Delete, Enter; then the passkey, the last one.
    await page.keyboard.press('Enter');
    await confirm.getByText(t.en('admin.credential.delete_confirm', { credential: newName, email }), { exact: true }).waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await deleteButton(newName).waitFor({ state: 'detached' });
    await expect.poll(() => focused(deleteButton(passkeyName))).toBe(true);
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await deleteButton(passkeyName).waitFor({ state: 'detached' });
    // No credential is left to delete: the focus is on the row's name.
    await expect.poll(() => row.locator('.row-title').evaluate((title) => title === document.activeElement)).toBe(true);
    expect(await h.server.ctx.db('credentials').where({ account_id: accountId })).toHaveLength(0);
  });

  it('a credential a colleague deleted meanwhile leaves the row when its deletion finds it gone', async () => {
    const { page } = h;
    await signInAsOperator(page);
    const email = `${unique('colleague')}@example.test`;
    const accountId = await createAccount(h.server.ctx.db, { email, name: `Cora ${unique('Colleague')}` });
    const [app] = (await h.server.ctx.db('credentials')
      .insert({ account_id: accountId, type: 'totp', secret: h.server.ctx.secretBox.seal('JBSWY3DPEHPK3PXP'), created_at: new Date('2025-05-02T10:00:00Z') })
      .returning('id')) as { id: string }[];
    const appName = t.en('admin.credential.added', { credential: t.en('admin.credential.totp'), time: '2025-05-02 10:00 UTC' });

    await page.goto('/admin/accounts');
    await page.getByLabel(t.en('admin.account.search_label'), { exact: true }).fill(email);
    await page.keyboard.press('Enter');
    const row = page.locator('.account-row', { hasText: email });
    const deleteButton = row.getByRole('button', { name: t.en('admin.credential.delete_named', { credential: appName }), exact: true });
    await deleteButton.waitFor();
    // Another operator's console deletes it while this one still shows it.
    await h.server.ctx.db('credentials').where({ id: app!.id }).delete();

    await deleteButton.click();
    const confirm = page.getByRole('dialog', { name: t.en('admin.credential.delete_title') });
    await confirm.getByRole('button', { name: t.en('admin.credential.delete'), exact: true }).click();
    await page.getByText(t.en('admin.credential.already_deleted'), { exact: true }).waitFor();
    await deleteButton.waitFor({ state: 'detached' });
    expect(await page.getByText(t.en('errors.failed_to_delete_credential')).count()).toBe(0);
    expect(await row.locator('li.chip.credential').count()).toBe(0);
    await expect.poll(() => row.locator('.row-title').evaluate((title) => title === document.activeElement)).toBe(true);
  });
});

/** Signs in through the login API as a new browser would; answers the state each step reached. */
async function passwordSignIn(email: string, password: string): Promise<string | undefined> {
  const browser = new BrowserLike(h.base);
  const started = await browser.json<{ session_id: string; state: string }>('/auth/login/start', { email });
  if (started.status !== 200) return `${started.status}`;
  const done = await browser.json<{ state: string }>('/auth/login/verify-password', { session_id: started.body.session_id, email, password });
  return done.status === 200 ? done.body.state : `${done.status}`;
}

describe('sign-in locks', () => {
  it('shows a lock with its end; a support operator unlocks it from the keyboard after confirming, and the person signs in', async () => {
    const { page } = h;
    await signInAsOperator(page, undefined, 'support');
    const email = `${unique('locked')}@example.test`;
    await createAccount(h.server.ctx.db, { email, name: `Lena ${unique('Locked')}`, password: PASSWORD });
    // Ten wrong passwords lock the address: the tenth is answered 423.
    for (let i = 1; i <= 10; i += 1) expect(await passwordSignIn(email, 'Wrong-Pass-1')).toBe(i < 10 ? '401' : '423');
    expect(await passwordSignIn(email, PASSWORD)).toBe('423');
    const { locked_until: lockedUntil } = (await h.server.ctx.db('accounts').where({ email }).first('locked_until')) as { locked_until: Date };

    await page.goto('/admin/accounts');
    await page.getByLabel(t.en('admin.account.search_label'), { exact: true }).fill(email);
    await page.keyboard.press('Enter');
    const row = page.locator('.account-row', { hasText: email });
    const lockText = t.en('admin.account.locked_until', { time: `${lockedUntil.toISOString().slice(0, 16).replace('T', ' ')} UTC` });
    await row.getByText(lockText, { exact: true }).waitFor();
    await h.shot('admin-account-locked');

    const unlock = row.getByRole('button', { name: t.en('admin.account.unlock'), exact: true });
    await unlock.focus();
    await page.keyboard.press('Enter');
    const confirm = page.getByRole('dialog', { name: t.en('admin.account.unlock_title') });
    await confirm.getByText(t.en('admin.account.unlock_confirm', { email }), { exact: true }).waitFor();
    // Not a risky change: the focus starts on Unlock, so Enter confirms.
    await page.keyboard.press('Enter');
    await page.getByText(t.en('admin.account.unlocked'), { exact: true }).waitFor();
    await unlock.waitFor({ state: 'detached' });
    expect(await row.getByText(lockText, { exact: true }).count()).toBe(0);
    // The button went with the lock: the focus is on the row's other action, not lost.
    const reset = row.getByRole('button', { name: t.en('admin.account.reset_password'), exact: true });
    expect(await reset.evaluate((button) => button === document.activeElement)).toBe(true);

    expect(await passwordSignIn(email, PASSWORD)).toBe('Done');
  });

  it('an unlock that fails says so, keeps the lock shown, and gives the focus back to Unlock', async () => {
    const { page } = h;
    await signInAsOperator(page, undefined, 'support');
    const email = `${unique('stilllocked')}@example.test`;
    await createAccount(h.server.ctx.db, { email, name: `Lars ${unique('Locked')}`, password: PASSWORD });
    for (let i = 1; i <= 10; i += 1) await passwordSignIn(email, 'Wrong-Pass-1');
    expect(await passwordSignIn(email, PASSWORD)).toBe('423');

    await page.goto('/admin/accounts');
    await page.getByLabel(t.en('admin.account.search_label'), { exact: true }).fill(email);
    await page.keyboard.press('Enter');
    const row = page.locator('.account-row', { hasText: email });
    const unlock = row.getByRole('button', { name: t.en('admin.account.unlock'), exact: true });
    await page.route('**/api/accounts/*/unlock', (route) =>
      route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ detail: [{ type: 'internal_error', msg: 'boom' }] }) }),
    );
    await unlock.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: t.en('admin.account.unlock_title') }).waitFor();
    await page.keyboard.press('Enter');
    await page.getByText(t.en('admin.account.unlock_failed'), { exact: true }).waitFor();
    await expect.poll(() => unlock.evaluate((button) => button === document.activeElement)).toBe(true);
    expect(await passwordSignIn(email, PASSWORD)).toBe('423');
  });
});

describe('signing out everywhere', () => {
  it('a support operator signs a person out from the keyboard: the confirmation starts on Cancel, and the focus comes back to the button', async () => {
    const { page } = h;
    await signInAsOperator(page, undefined, 'support');
    const email = `${unique('stolen')}@example.test`;
    await createAccount(h.server.ctx.db, { email, name: `Stina ${unique('Stolen')}`, password: PASSWORD });
    // The person's phone, signed in through the login API.
    const phone = new BrowserLike(h.base);
    const started = await phone.json<{ session_id: string }>('/auth/login/start', { email });
    expect((await phone.json<{ state: string }>('/auth/login/verify-password', { session_id: started.body.session_id, email, password: PASSWORD })).body.state).toBe('Done');
    const phoneSignedIn = async () => (await phone.request('/oauth2/userinfo')).status;
    expect(await phoneSignedIn()).toBe(200);

    await page.goto('/admin/accounts');
    await page.getByLabel(t.en('admin.account.search_label'), { exact: true }).fill(email);
    await page.keyboard.press('Enter');
    const row = page.locator('.account-row', { hasText: email });
    const signOut = row.getByRole('button', { name: t.en('admin.account.sign_out_everywhere'), exact: true });
    const confirm = page.getByRole('dialog', { name: t.en('admin.account.sign_out_title') });
    const focused = (button: typeof signOut) => button.evaluate((element) => element === document.activeElement);

    // A risky change: Enter alone cancels.
    await signOut.focus();
    await page.keyboard.press('Enter');
    await confirm.getByText(t.en('admin.account.sign_out_confirm', { email }), { exact: true }).waitFor();
    await h.shot('admin-account-sign-out');
    expect(await focused(confirm.getByRole('button', { name: t.en('app.cancel'), exact: true }))).toBe(true);
    await page.keyboard.press('Enter');
    await confirm.waitFor({ state: 'hidden' });
    expect(await phoneSignedIn()).toBe(200);

    await signOut.focus();
    await page.keyboard.press('Enter');
    await confirm.waitFor();
    await page.keyboard.press('Tab');
    expect(await focused(confirm.getByRole('button', { name: t.en('admin.account.sign_out_everywhere'), exact: true }))).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByText(t.en('admin.account.signed_out', { applications: 0 }), { exact: true }).waitFor();
    // The button stays (it is always offered); the call disabled it, and the focus is back on it.
    await expect.poll(() => focused(signOut)).toBe(true);
    expect(await phoneSignedIn()).toBe(401);
  });

  it('a support operator trying to sign an admin out is told their role does not allow it, and the admin stays signed in', async () => {
    const { page } = h;
    await signInAsOperator(page, undefined, 'support');
    const email = `${unique('admin')}@example.test`;
    const accountId = await createAccount(h.server.ctx.db, { email, name: `Ada ${unique('Admin')}`, password: PASSWORD });
    await h.server.ctx.db('operator_roles').insert({ account_id: accountId, role: 'admin' });
    await createPortalSession(h.server.ctx, { account_id: accountId, email, amr: ['pwd', 'mfa'], auth_time: 0, ip: null, user_agent: null });

    await page.goto('/admin/accounts');
    await page.getByLabel(t.en('admin.account.search_label'), { exact: true }).fill(email);
    await page.keyboard.press('Enter');
    const row = page.locator('.account-row', { hasText: email });
    await row.getByRole('button', { name: t.en('admin.account.sign_out_everywhere'), exact: true }).click();
    const confirm = page.getByRole('dialog', { name: t.en('admin.account.sign_out_title') });
    await confirm.getByRole('button', { name: t.en('admin.account.sign_out_everywhere'), exact: true }).click();
    // The server's 403 is a role refusal, shown on the page: not a sign-in problem.
    await page.getByText(`${t.en('admin.account.sign_out_failed')}. ${t.en('admin.role_refused')}`, { exact: true }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/admin/accounts');
    expect(await listPortalSessions(h.server.ctx, accountId)).toHaveLength(1);
  });
});

describe('tenants', () => {
  it('type, Enter, ArrowDown to highlight, Shift+Enter to open, SMS enabled after confirmation, Escape clears', async () => {
    const { page } = h;
    await signInAsOperator(page);
    const prefix = unique('Kbd');
    const alphaId = await createTenant(h.server.ctx.db, `${prefix.toLowerCase()}alpha`, { name: `${prefix} Alpha` });
    await createTenant(h.server.ctx.db, `${prefix.toLowerCase()}beta`, { name: `${prefix} Beta` });
    const member = await createAccount(h.server.ctx.db, { email: `${unique('member')}@example.test`, name: 'Mira Member' });
    const leaver = await createAccount(h.server.ctx.db, { email: `${unique('leaver')}@example.test`, name: 'Lars Leaver' });
    const betaId = (await h.server.ctx.db('tenants').where({ slug: `${prefix.toLowerCase()}beta` }).first('id')) as { id: string };
    await grantAccess(h.server.ctx.db, member, betaId.id);
    await grantAccess(h.server.ctx.db, leaver, betaId.id, false);
    expect(alphaId).toBeTruthy();

    await page.goto('/admin/tenants');
    await heading(page, 'admin.tenants').waitFor();
    const search = page.getByLabel(t.en('admin.tenant.search_label'), { exact: true });
    expect(await search.evaluate((input) => input === document.activeElement)).toBe(true);
    await page.keyboard.type(prefix.toLowerCase());
    await page.keyboard.press('Enter');

    const rows = page.locator('.admin-rows > li');
    await rows.nth(1).waitFor();
    expect(await rows.count()).toBe(2);
    // Sorted by name.
    expect(await rows.nth(0).getAttribute('data-tenant-slug')).toBe(`${prefix.toLowerCase()}alpha`);

    await page.keyboard.press('ArrowDown');
    expect(await rows.nth(0).getAttribute('aria-current')).toBe('true');
    await page.keyboard.press('ArrowDown');
    expect(await rows.nth(1).getAttribute('aria-current')).toBe('true');
    expect(await rows.nth(0).getAttribute('aria-current')).toBeNull();
    // Focus stays in the search box all along.
    expect(await search.evaluate((input) => input === document.activeElement)).toBe(true);

    // Enter on the highlight logs in as admin (test/browser/impersonation.test.ts); Shift+Enter opens.
    await page.keyboard.press('Shift+Enter');
    const beta = rows.nth(1);
    expect(await beta.getByRole('button', { name: `${prefix} Beta`, exact: true }).getAttribute('aria-expanded')).toBe('true');
    await beta.getByRole('cell', { name: 'Mira Member', exact: true }).waitFor();
    expect(await beta.locator('tr.inactive', { hasText: 'Lars Leaver' }).count()).toBe(1);
    await beta.locator('.sms-panel .badge', { hasText: t.en('admin.sms.status_disabled') }).waitFor();
    await h.shot('admin-tenant-expanded');

    await beta.getByRole('button', { name: t.en('admin.sms.enable'), exact: true }).click();
    const confirm = page.getByRole('dialog', { name: t.en('admin.sms.enable') });
    await confirm.waitFor();
    await confirm.getByRole('button', { name: t.en('admin.sms.enable'), exact: true }).click();
    await page.getByText(t.en('admin.sms.saved'), { exact: true }).waitFor();
    // Enabled without a signature: waiting for signature.
    await beta.locator('.sms-panel .badge', { hasText: t.en('admin.sms.status_waiting') }).waitFor();
    // The row's raw settings follow the change.
    await beta.getByRole('rowheader', { name: 'system_sms' }).waitFor();
    // Dark mode is respected by the console (and remembered).
    await page.getByLabel(t.en('admin.dark_mode'), { exact: true }).check();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await h.shot('admin-tenant-sms-dark');
    const stored = (await h.server.ctx.db('tenant_settings').where({ tenant_id: betaId.id, key: 'system_sms' }).first('value')) as { value: unknown };
    expect(stored.value).toEqual({ value: true });

    await search.focus();
    await page.keyboard.press('Escape');
    expect(await search.inputValue()).toBe('');
    await rows.first().waitFor({ state: 'detached' });
    await page.getByText(t.en('admin.tenant.search_first'), { exact: true }).waitFor();
  });

  it("a tenant user's Access tokens link opens the tokens page, and its back link returns to Tenants", async () => {
    const { page } = h;
    await signInAsOperator(page);
    const slug = unique('tokentenant');
    const name = `Token ${unique('Kund')}`;
    const tenantId = await createTenant(h.server.ctx.db, slug, { name });
    const email = `${unique('tenantuser')}@example.test`;
    const accountId = await createAccount(h.server.ctx.db, { email, name: `Tage ${unique('Tenantuser')}` });
    await grantAccess(h.server.ctx.db, accountId, tenantId);

    await page.goto('/admin/tenants');
    await page.getByLabel(t.en('admin.tenant.search_label'), { exact: true }).fill(slug);
    await page.keyboard.press('Enter');
    const row = page.locator(`[data-tenant-slug="${slug}"]`);
    await row.getByRole('button', { name, exact: true }).click();
    await row.getByRole('link', { name: t.en('admin.tenant.tokens_of', { email }), exact: true }).click();

    await page.getByText(t.en('admin.tokens_for', { email, id: accountId }), { exact: true }).waitFor();
    expect(new URL(page.url()).search).toBe('');
    await page.getByRole('link', { name: t.en('admin.tenant.back'), exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/admin/tenants');
    await heading(page, 'admin.tenants').waitFor();
  });

  it('creates a tenant with a slug derived from the name', async () => {
    const { page } = h;
    await signInAsOperator(page);
    const name = `Åre Bygg ${unique('')}`;
    await page.goto('/admin/tenants');
    await page.getByRole('link', { name: t.en('admin.new_tenant'), exact: true }).click();
    await heading(page, 'admin.new_tenant').waitFor();
    await page.getByLabel(t.en('admin.tenant.name'), { exact: true }).fill(name);
    const slug = page.getByLabel(t.en('admin.tenant.slug'), { exact: true });
    const derived = name.normalize('NFKD').replace(/\p{Mark}/gu, '').toLowerCase().replace(/[^a-z0-9]/g, '');
    expect(await slug.inputValue()).toBe(derived);

    await slug.fill('Not-Valid');
    await page.getByText(t.en('admin.tenant.slug_invalid'), { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: t.en('admin.tenant.create'), exact: true }).isDisabled()).toBe(true);
    await slug.fill(derived);
    await page.getByRole('button', { name: t.en('admin.tenant.create'), exact: true }).click();

    await page.waitForURL((url) => url.pathname === '/admin/tenants' && url.searchParams.get('q') === derived);
    await page.locator(`[data-tenant-slug="${derived}"]`).waitFor();

    // The same slug again is refused with the spec's message.
    await page.goto('/admin/tenants/new');
    await page.getByLabel(t.en('admin.tenant.name'), { exact: true }).fill(name);
    await page.getByRole('button', { name: t.en('admin.tenant.create'), exact: true }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect((await alert.innerText()).startsWith(t.en('errors.error_creating_tenant'))).toBe(true);
    // Creating disabled Create, which dropped the focus: after the refusal it is back on Create.
    const create = page.getByRole('button', { name: t.en('admin.tenant.create'), exact: true });
    await expect.poll(() => create.evaluate((button) => button === document.activeElement)).toBe(true);
  });

  it('Enable, Pause and Disable SMS are busy while their post runs: a second click posts nothing, and a failure gives the focus back', async () => {
    const { page } = h;
    await signInAsOperator(page);
    const slug = unique('smsbusy');
    const name = `Sms Busy ${unique('Kund')}`;
    const tenantId = await createTenant(h.server.ctx.db, slug, { name });
    // A sender is set, so Pause is offered once SMS is enabled.
    await h.server.ctx.db('tenant_settings').insert({
      tenant_id: tenantId,
      key: 'info',
      value: JSON.stringify({ sender: 'Nyckel', warning_1: 10, warning_2: 5, paused: false, warned: false }),
    });
    const stored = async (key: string) =>
      ((await h.server.ctx.db('tenant_settings').where({ tenant_id: tenantId, key }).first('value')) as { value: Record<string, unknown> }).value;

    // Every POST of an SMS setting is counted, and held 2.5 s (then let through, or answered 503).
    let posts = 0;
    let unavailable = false;
    await page.route('**/settings/sms', async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      posts += 1;
      await new Promise((resolve) => setTimeout(resolve, 2500));
      if (unavailable) await route.fulfill({ status: 503, contentType: 'application/json', body: '{"detail":[{"type":"service_unavailable","msg":"x"}]}' });
      else await route.continue();
    });

    await page.goto('/admin/tenants');
    await page.getByLabel(t.en('admin.tenant.search_label'), { exact: true }).fill(slug);
    await page.keyboard.press('Enter');
    const row = page.locator(`[data-tenant-slug="${slug}"]`);
    await row.getByRole('button', { name, exact: true }).click();
    const button = (key: string) => row.getByRole('button', { name: t.en(key), exact: true });
    const dialog = (key: string) => page.getByRole('dialog', { name: t.en(key) });
    const focused = (locator: ReturnType<typeof button>) => locator.evaluate((element) => element === document.activeElement);
    /** Clicks the switch again while its post runs; should that open the confirmation, confirms it as a hurried operator would. */
    const clickAgain = async (switchKey: string) => {
      await button(switchKey).click({ force: true, timeout: 1000 }).catch(() => undefined);
      const reopened = await dialog(switchKey).waitFor({ timeout: 1000 }).then(
        () => true,
        () => false,
      );
      if (reopened) await dialog(switchKey).getByRole('button', { name: t.en(switchKey), exact: true }).click();
      return reopened;
    };

    await button('admin.sms.enable').click();
    await dialog('admin.sms.enable').getByRole('button', { name: t.en('admin.sms.enable'), exact: true }).click();
    expect(await clickAgain('admin.sms.enable')).toBe(false);
    // Still posting: the switch is busy and disabled.
    expect(await button('admin.sms.enable').getAttribute('aria-busy')).toBe('true');
    expect(await button('admin.sms.enable').isDisabled()).toBe(true);
    await h.shot('admin-sms-enabling');
    await row.locator('.sms-panel .badge', { hasText: t.en('admin.sms.status_waiting') }).waitFor();
    expect(posts).toBe(1);
    expect(await stored('system_sms')).toEqual({ value: true });
    // The switch now says Disable; the focus the call took from it is back on it.
    await expect.poll(() => focused(button('admin.sms.disable'))).toBe(true);

    await button('admin.sms.pause').click();
    await dialog('admin.sms.pause').getByRole('button', { name: t.en('admin.sms.pause'), exact: true }).click();
    expect(await clickAgain('admin.sms.pause')).toBe(false);
    expect(await button('admin.sms.pause').getAttribute('aria-busy')).toBe('true');
    // Nor can the other switch post meanwhile.
    expect(await button('admin.sms.disable').isDisabled()).toBe(true);
    await row.locator('.sms-panel .badge', { hasText: t.en('admin.sms.status_paused') }).waitFor();
    expect(posts).toBe(2);
    expect(await stored('info')).toMatchObject({ paused: true });

    unavailable = true;
    await button('admin.sms.disable').click();
    await dialog('admin.sms.disable').getByRole('button', { name: t.en('admin.sms.disable'), exact: true }).click();
    expect(await clickAgain('admin.sms.disable')).toBe(false);
    expect(await button('admin.sms.disable').getAttribute('aria-busy')).toBe('true');
    await page.getByRole('alert').filter({ hasText: t.en('admin.sms.save_failed') }).waitFor();
    await expect.poll(() => focused(button('admin.sms.disable'))).toBe(true);
    expect(await button('admin.sms.disable').isDisabled()).toBe(false);
    expect(posts).toBe(3);
    expect(await stored('system_sms')).toEqual({ value: true });
  });

  it('adding credits or saving the SMS settings that fails (503) gives the focus back to Add or Save; added credits leave it in the emptied field', async () => {
    const { page } = h;
    await signInAsOperator(page);
    const slug = unique('smsfocus');
    const name = `Sms Focus ${unique('Kund')}`;
    await createTenant(h.server.ctx.db, slug, { name });
    const unavailable = (route: Route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: '{"detail":[{"type":"service_unavailable","msg":"x"}]}' });
    const focused = (locator: ReturnType<Page['locator']>) => locator.evaluate((element) => element === document.activeElement);

    const creditsDown = await failWhileOn(page, '**/settings/sms/credits', unavailable);
    const settingsDown = await failWhileOn(page, '**/settings/sms', unavailable);
    await page.goto('/admin/tenants');
    await page.getByLabel(t.en('admin.tenant.search_label'), { exact: true }).fill(slug);
    await page.keyboard.press('Enter');
    const row = page.locator(`[data-tenant-slug="${slug}"]`);
    await row.getByRole('button', { name, exact: true }).click();

    const credits = row.getByLabel(t.en('admin.sms.add_credits'), { exact: true });
    const add = row.getByRole('button', { name: t.en('admin.sms.add'), exact: true });
    await credits.fill('100');
    creditsDown.on = true;
    // Adding disables Add while the call runs, which drops the focus to the page.
    await add.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: t.en('admin.sms.credits_failed') }).waitFor();
    await expect.poll(() => focused(add)).toBe(true);
    creditsDown.on = false;
    await page.keyboard.press('Enter');
    await page.getByText(t.en('admin.sms.credits_added'), { exact: true }).waitFor();
    await expect.poll(() => focused(credits)).toBe(true);

    await row.getByText(t.en('admin.sms.edit'), { exact: true }).click();
    await row.getByLabel(t.en('admin.sms.sender'), { exact: true }).fill('Nyckel');
    await row.getByLabel(t.en('admin.sms.warning_1'), { exact: true }).fill('10');
    await row.getByLabel(t.en('admin.sms.warning_2'), { exact: true }).fill('5');
    const save = row.getByRole('button', { name: t.en('admin.sms.save'), exact: true });
    settingsDown.on = true;
    await save.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: t.en('admin.sms.save_failed') }).waitFor();
    await expect.poll(() => focused(save)).toBe(true);
  });
});

describe('invoice and notifications', () => {
  it('shows the fee per tenant in SEK with a total, and sends a notification to one tenant', async () => {
    const { page } = h;
    await signInAsOperator(page);
    const name = `Invoiced ${unique('Kund')}`;
    const tenantId = await createTenant(h.server.ctx.db, unique('invoiced'), { name });
    for (const person of ['a', 'b', 'c']) await grantAccess(h.server.ctx.db, await createAccount(h.server.ctx.db, { email: `${unique(person)}@example.test` }), tenantId);

    await page.goto('/admin/invoice');
    await heading(page, 'admin.invoice').waitFor();
    const row = page.getByRole('row', { name: new RegExp(name) });
    await row.waitFor();
    // 2850 + 2 × 275 for three users.
    expect(await row.innerText()).toContain('3,400\u00a0SEK');
    await page.locator('tfoot').getByText(t.en('admin.invoice_page.total')).waitFor();
    await h.shot('admin-invoice');

    await page.getByRole('link', { name: t.en('admin.notifications') }).click();
    await heading(page, 'admin.notifications').waitFor();
    const send = page.getByRole('button', { name: t.en('admin.notification.send'), exact: true });
    expect(await send.isDisabled()).toBe(true);
    await page.getByLabel(t.en('admin.notification.message'), { exact: true }).fill('Planned maintenance tonight');
    await page.getByLabel(t.en('admin.notification.popup'), { exact: true }).check();
    await page.getByRole('checkbox', { name: new RegExp(name) }).check();
    await send.click();
    await page.getByText(t.en('success.notification_sent'), { exact: true }).waitFor();
    const stored = (await h.server.ctx.db('notifications').where({ message: 'Planned maintenance tonight' }).first()) as { tenants: string[]; popup: boolean };
    expect(stored).toMatchObject({ tenants: [tenantId], popup: true });
  });
});

describe('notifications: sending to every tenant', () => {
  const messageField = (page: Page) => page.getByLabel(t.en('admin.notification.message'), { exact: true });
  const filterField = (page: Page) => page.getByLabel(t.en('admin.notification.tenant_filter'), { exact: true });
  const sendButton = (page: Page) => page.getByRole('button', { name: t.en('admin.notification.send'), exact: true });
  const confirmAll = (page: Page) => page.getByRole('dialog', { name: t.en('admin.notification.confirm_all_title') });
  const stored = (message: string) => h.server.ctx.db('notifications').where({ message });

  /** Every POST of a notification the page makes from now on. */
  function notificationPosts(page: Page): string[] {
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/notification/') posts.push(request.postData() ?? '');
    });
    return posts;
  }

  async function openNotifications(page: Page) {
    await signInAsOperator(page);
    await page.goto('/admin/notifications');
    await heading(page, 'admin.notifications').waitFor();
    await filterField(page).waitFor();
  }

  it('Enter in the tenant filter filters, and never sends the notification', async () => {
    const { page } = h;
    const name = `Filtered ${unique('Kund')}`;
    await createTenant(h.server.ctx.db, unique('filtered'), { name });
    await openNotifications(page);
    const posts = notificationPosts(page);
    const message = `Filter then Enter ${unique('')}`;
    await messageField(page).fill(message);

    // No tenant chosen (every tenant): Enter in the filter neither sends nor asks to send.
    await filterField(page).fill(name.toLowerCase());
    await page.keyboard.press('Enter');
    // One tenant chosen (no confirmation stands in the way): Enter still sends nothing.
    const tenant = page.getByRole('checkbox', { name: new RegExp(name) });
    await tenant.check();
    await filterField(page).focus();
    await page.keyboard.press('Enter');

    // A send would have started at once, on the key press.
    await page.waitForTimeout(500);
    expect(posts).toEqual([]);
    expect(await confirmAll(page).count()).toBe(0);
    expect(await stored(message)).toHaveLength(0);
    expect(await messageField(page).inputValue()).toBe(message);
    expect(await tenant.isChecked()).toBe(true);
    expect(await page.locator('.picker-list li').count()).toBe(1);
    expect(await page.getByText(t.en('success.notification_sent'), { exact: true }).count()).toBe(0);
  });

  it('asks before sending to all tenants, starting on Cancel, and sends to every tenant once confirmed', async () => {
    const { page } = h;
    await createTenant(h.server.ctx.db, unique('everyone'), { name: `Everyone ${unique('Kund')}` });
    await openNotifications(page);
    const posts = notificationPosts(page);
    const count = await page.locator('.picker-list li').count();
    expect(count).toBeGreaterThan(1);
    const message = `To everyone ${unique('')}`;
    await messageField(page).fill(message);

    await sendButton(page).click();
    const dialog = confirmAll(page);
    await dialog.waitFor();
    await dialog.getByText(t.en('admin.notification.confirm_all_count_other', { count }), { exact: true }).waitFor();
    await h.shot('admin-notification-confirm-all');
    // A warning: Enter alone lands on Cancel, and nothing is sent.
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'hidden' });
    expect(posts).toEqual([]);
    expect(await messageField(page).inputValue()).toBe(message);

    await sendButton(page).click();
    await dialog.getByRole('button', { name: t.en('admin.notification.confirm_all'), exact: true }).click();
    await page.getByText(t.en('success.notification_sent'), { exact: true }).waitFor();
    expect(posts).toHaveLength(1);
    expect(await stored(message)).toMatchObject([{ tenants: [] }]);
  });

  it('a send that fails (503) says so and gives the focus back to Send; once sent, the focus is on the message', async () => {
    const { page } = h;
    const name = `Unreachable ${unique('Kund')}`;
    await createTenant(h.server.ctx.db, unique('unreachable'), { name });
    const sendsDown = await failWhileOn(page, '**/api/notification/', (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: '{"detail":[{"type":"service_unavailable","msg":"x"}]}' }),
    );
    await openNotifications(page);
    const message = `Sent on retry ${unique('')}`;
    await messageField(page).fill(message);
    await page.getByRole('checkbox', { name: new RegExp(name) }).check();
    sendsDown.on = true;

    // Sending disables Send while the call runs, which drops the focus to the page.
    await sendButton(page).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: t.en('admin.notification.failed') }).waitFor();
    await expect.poll(() => sendButton(page).evaluate((button) => button === document.activeElement)).toBe(true);
    expect(await stored(message)).toHaveLength(0);

    sendsDown.on = false;
    await page.keyboard.press('Enter');
    await page.getByText(t.en('success.notification_sent'), { exact: true }).waitFor();
    await expect.poll(() => messageField(page).evaluate((field) => field === document.activeElement)).toBe(true);
    expect(await stored(message)).toHaveLength(1);
  });
});

describe('signing out of this browser', () => {
  it('the top bar signs the operator out: busy while the call runs, then /login, and the console asks to sign in again', async () => {
    const { page } = h;
    const { accountId } = await signInAsOperator(page);
    await page.goto('/admin/accounts');
    await heading(page, 'admin.accounts').waitFor();
    const signOut = page.getByRole('banner').getByRole('button', { name: t.en('admin.sign_out'), exact: true });

    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/accounts/sessions/sign-out', async (route) => {
      await held;
      await route.continue();
    });
    await signOut.click();
    await expect.poll(() => signOut.getAttribute('aria-busy')).toBe('true');
    expect(await signOut.isDisabled()).toBe(true);
    release();

    await page.waitForURL((url) => url.pathname === '/login');
    expect(await listPortalSessions(h.server.ctx, accountId)).toHaveLength(0);
    await page.goto('/admin/accounts');
    await page.waitForURL((url) => url.pathname === '/admin' && url.searchParams.get('from') === '/admin/accounts');
    await heading(page, 'admin.signin_required').waitFor();
  });

  it('says so when the sign-out fails, and stays on the page signed in', async () => {
    const { page } = h;
    const { accountId } = await signInAsOperator(page);
    await page.goto('/admin/accounts');
    await heading(page, 'admin.accounts').waitFor();
    await page.route('**/api/accounts/sessions/sign-out', (route) => route.fulfill({ status: 503, contentType: 'application/json', body: '{"detail":[]}' }));
    const signOut = page.getByRole('banner').getByRole('button', { name: t.en('admin.sign_out'), exact: true });
    await signOut.click();
    await page.getByRole('alert').getByText(t.en('admin.sign_out_failed'), { exact: true }).waitFor();
    expect(await signOut.isDisabled()).toBe(false);
    expect(new URL(page.url()).pathname).toBe('/admin/accounts');
    expect(await listPortalSessions(h.server.ctx, accountId)).toHaveLength(1);
  });

  it('is there in Swedish too', async () => {
    const { page } = h;
    await signInAsOperator(page);
    await page.goto('/admin/accounts');
    await page.getByRole('button', { name: t.en('language.sv'), exact: true }).click();
    await page.getByRole('banner').getByRole('button', { name: t.sv('admin.sign_out'), exact: true }).waitFor();
  });
});

describe('on a 375 px phone', () => {
  const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

  it('the accounts page and a tenant with a wide users table do not scroll sideways; the top bar wraps and the menu leaves room for the page', async () => {
    const { page } = h;
    await page.setViewportSize({ width: 375, height: 667 });
    await signInAsOperator(page);
    const prefix = unique('Narrow');
    const tenantId = await createTenant(h.server.ctx.db, prefix.toLowerCase(), { name: `${prefix} Recruiting` });
    const email = `${unique('a.very.long.address.for.a.narrow.screen')}@recruiting.example.test`;
    const accountId = await createAccount(h.server.ctx.db, { email, name: `Nora ${prefix} Narrowson`, password: PASSWORD });
    await grantAccess(h.server.ctx.db, accountId, tenantId);
    for (const type of ['totp', 'totp'] as const) await h.server.ctx.db('credentials').insert({ account_id: accountId, type, secret: h.server.ctx.secretBox.seal('JBSWY3DPEHPK3PXP') });

    await page.goto('/admin/accounts');
    await heading(page, 'admin.accounts').waitFor();
    await page.getByLabel(t.en('admin.account.search_label'), { exact: true }).fill(email);
    await page.keyboard.press('Enter');
    await page.locator('.account-row', { hasText: email }).waitFor();
    expect(await pageWidth(page)).toBeLessThanOrEqual(375);
    // The language switcher and Sign out fit on the screen; the menu is a strip, not the first screen.
    for (const name of [t.en('language.en'), t.en('admin.sign_out')]) {
      const box = await page.getByRole('banner').getByRole('button', { name, exact: true }).boundingBox();
      expect(box && box.x + box.width, name).toBeLessThanOrEqual(375);
    }
    const sidebar = await page.locator('#admin-sidebar').boundingBox();
    expect(sidebar?.height).toBeLessThan(667 / 3);
    await h.shot('admin-375-accounts');

    await page.goto(`/admin/tenants?q=${prefix.toLowerCase()}`);
    await page.getByRole('button', { name: `${prefix} Recruiting`, exact: true }).click();
    const cell = page.getByRole('cell', { name: email, exact: true });
    await cell.waitFor();
    expect(await pageWidth(page)).toBeLessThanOrEqual(375);
    // A table wider than the screen scrolls inside its own wrapper.
    const wrapper = page.locator('.table-scroll', { has: cell });
    const { scroll, client } = await wrapper.evaluate((element) => ({ scroll: element.scrollWidth, client: element.clientWidth }));
    expect(client).toBeLessThanOrEqual(375);
    expect(scroll).toBeGreaterThan(client);
    await h.shot('admin-375-tenant-details');
  });
});

describe('tenant users beyond the first 200', () => {
  it('says the list is cut short, and the user search finds members past it on the server', async () => {
    const { page } = h;
    await signInAsOperator(page);
    const slug = unique('crowd');
    const tenantId = await createTenant(h.server.ctx.db, slug, { name: `Crowd ${slug}` });
    const members = [...Array.from({ length: 205 }, (_, i) => ({ email: `${slug}-${i}@example.test`, name: `Crowd ${String(i).padStart(3, '0')}` })), { email: `${slug}-zoe@example.test`, name: 'Zoe Hidden' }];
    const ids = (await h.server.ctx.db('accounts').insert(members).returning('id')) as { id: string }[];
    await h.server.ctx.db('tenant_access').insert(ids.map(({ id }) => ({ account_id: id, tenant_id: tenantId, active: true, role: 'user' })));

    await page.goto('/admin/tenants');
    await heading(page, 'admin.tenants').waitFor();
    await page.getByLabel(t.en('admin.tenant.search_label'), { exact: true }).fill(slug);
    await page.keyboard.press('Enter');
    const row = page.locator('.admin-rows > li', { has: page.getByRole('button', { name: `Crowd ${slug}`, exact: true }) });
    await row.getByRole('button', { name: `Crowd ${slug}`, exact: true }).click();

    await row.getByRole('cell', { name: 'Crowd 000', exact: true }).waitFor();
    await row.getByText(t.en('admin.tenant.users_capped', { count: 200 }), { exact: false }).waitFor();
    expect(await row.locator('tbody tr').count()).toBe(200);
    expect(await row.getByRole('cell', { name: 'Zoe Hidden', exact: true }).count()).toBe(0);

    // Each server search spends a point of the operator's read budget: once one held all its
    // matches, typing on narrows it in the page.
    const searches: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === `/api/tenants/${tenantId}/users` && url.searchParams.has('q')) searches.push(url.searchParams.get('q')!);
    });
    const search = row.locator('.user-search input');
    await search.fill('hid');
    await row.getByRole('cell', { name: 'Zoe Hidden', exact: true }).waitFor();
    await search.pressSequentially('den', { delay: 600 });
    await row.getByText(t.en('admin.tenant.users_matching_one', { count: 1 }), { exact: true }).waitFor();
    expect(await row.locator('tbody tr').count()).toBe(1);
    expect(searches).toEqual(['hid']);

    // A refused search says why, and does not pass the loaded 200 off as its answer.
    await page.route(`**/api/tenants/${tenantId}/users?*`, (route) =>
      route.fulfill({ status: 429, headers: { 'Retry-After': '120' }, json: { detail: [{ type: 'too_many_requests', msg: 'Too many requests' }] } }),
    );
    await search.fill('crowd 1');
    await row.getByText(`${t.en('admin.tenant.failed_users')}`, { exact: false }).waitFor();
    await row.getByText(t.en('admin.retry_in_minutes_other', { count: 2 }), { exact: false }).waitFor();
    expect(await row.locator('tbody tr').count()).toBe(0);
  });
});
