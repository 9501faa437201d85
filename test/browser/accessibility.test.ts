import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AxeResults, RunOptions } from 'axe-core';
import { generate } from 'otplib';
import type { Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { newTotpSecret } from '../../src/credentials/totp/totp.ts';
import { createPortalSession } from '../../src/session/portal-session.ts';
import { createAccount } from '../fixtures/accounts.ts';
import { useBrowserHarness } from './harness.ts';
import { alertText, enterEmail, enterPassword, expectTenantCard, openLogin, PASSWORD, people } from './login-steps.ts';
import { addPortalCookie, signInAsOperator } from './operator-session.ts';
import { t } from './texts.ts';

/**
 * The screens people see, checked by axe-core against WCAG 2.1 A and AA: the sign-in steps and an
 * error, the tenant selection, the profile with a confirmation, the console's accounts with a
 * dialog, in English and in Swedish. Each journey checks the screens it passes through.
 */
const h = useBrowserHarness();

const { personWithTenant } = people(h);

/**
 * The portal's CSP (script-src 'self', no eval) refuses the inline script axe is injected as, and
 * axe compiles its messages with new Function: this file's pages load without the CSP. Nothing
 * checked here depends on it; the other journeys run under it.
 */
beforeEach(async () => {
  const devtools = await h.context.newCDPSession(h.page);
  await devtools.send('Page.setBypassCSP', { enabled: true });
});

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WCAG_21_AA: RunOptions = { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } };

interface Violation {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/** Runs axe on the page as it is now; fails listing each violation and where it is. */
async function expectAccessible(page: Page, screen: string): Promise<void> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE_SOURCE });
  const violations = await page.evaluate(async (options): Promise<Violation[]> => {
    const { axe } = window as unknown as { axe: { run: (context: Document, options: RunOptions) => Promise<AxeResults> } };
    const results = await axe.run(document, options);
    return results.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact ?? 'unknown',
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.join(' ')),
    }));
  }, WCAG_21_AA);
  const report = violations.map((v) => `- ${v.id} (${v.impact}): ${v.help}\n    ${v.targets.join('\n    ')}`).join('\n');
  expect(violations.length, `accessibility violations on ${screen} (${page.url()}):\n${report}\n`).toBe(0);
}

/** The authenticator's current code for `secret`, on the server's clock. */
async function totpCode(secret: string): Promise<string> {
  const step = Math.floor(h.server.ctx.now().getTime() / 30_000);
  return generate({ secret, epoch: step * 30 });
}

/** A person signed in (a portal session made in the store, just now), on nothing yet. */
async function signedIn(page: Page, fixture: { email: string; password?: string; is_user?: boolean; is_stakeholder?: boolean }) {
  const accountId = await createAccount(h.server.ctx.db, { ...fixture, name: 'Pat Person' });
  const session = await createPortalSession(h.server.ctx, { account_id: accountId, email: fixture.email, amr: ['pwd'], auth_time: Math.floor(Date.now() / 1000), ip: null, user_agent: null });
  await addPortalCookie(h, page.context(), session.id);
  return accountId;
}

describe('accessibility (axe-core, WCAG 2.1 AA)', () => {
  it('the password sign-in: email, password, a wrong password, the authenticator code and the tenants', async () => {
    const { page } = h;
    const person = await personWithTenant('axel', PASSWORD);
    const secret = newTotpSecret();
    await h.server.ctx.db('credentials').insert({ account_id: person.accountId, type: 'totp', secret: h.server.ctx.secretBox.seal(secret) });

    await openLogin(page);
    await expectAccessible(page, 'the email step');
    await enterEmail(page, person.email);
    await page.getByLabel(t.en('login.credentials.password'), { exact: true }).waitFor();
    await expectAccessible(page, 'the password step');
    await enterPassword(page, 'Wrong-Horse-42!');
    expect(await alertText(page)).toBe(t.en('errors.invalid_credentials'));
    await expectAccessible(page, 'the password step with its error');

    await enterPassword(page, PASSWORD);
    await page.getByRole('heading', { name: t.en('login.mfa.title'), exact: true }).waitFor();
    await expectAccessible(page, 'the authenticator code step');
    await page.getByLabel(t.en('login.mfa.code'), { exact: true }).fill(await totpCode(secret));
    await page.getByRole('button', { name: t.en('login.mfa.submit'), exact: true }).click();
    await expectTenantCard(page, person.tenant);
    await expectAccessible(page, 'the tenant selection');
  });

  it('in Swedish: the email step, the email code, creating a password and the tenants', async () => {
    const { page } = h;
    const person = await personWithTenant('sigrid');

    await openLogin(page);
    await page.getByRole('button', { name: t.sv('language.sv'), exact: true }).click();
    await page.getByRole('heading', { name: t.sv('login.title'), exact: true }).waitFor();
    await expectAccessible(page, 'the Swedish email step');
    await enterEmail(page, person.email, 'sv');
    await page.getByRole('heading', { name: t.sv('login.otp.title'), exact: true }).waitFor();
    await expectAccessible(page, 'the Swedish email code step');

    const mail = await h.mail.waitFor(person.email, (message) => /\b\d{6}\b/.test(message.text));
    await page.getByLabel(t.sv('login.otp.digit', { n: 1 }), { exact: true }).fill(/\b(\d{6})\b/.exec(mail.text)![1]!);
    await page.getByRole('heading', { name: t.sv('login.create_credential.title'), exact: true }).waitFor();
    await expectAccessible(page, 'the Swedish create-a-password step');
    await page.getByRole('button', { name: t.sv('login.create_credential.skip'), exact: true }).click();
    await expectTenantCard(page, person.tenant);
    await expectAccessible(page, 'the Swedish tenant selection');
  });

  it('the profile, its confirmation before the password goes, and the authenticator setup', async () => {
    const { page } = h;
    await signedIn(page, { email: 'stella-axe@example.test', password: PASSWORD, is_user: false, is_stakeholder: true });

    await page.goto('/profile');
    await page.getByRole('heading', { level: 1, name: t.en('profile.title'), exact: true }).waitFor();
    await page.getByRole('heading', { level: 2, name: t.en('profile.activity.title'), exact: true }).waitFor();
    await expectAccessible(page, 'the profile');
    await page.getByRole('switch', { name: t.en('profile.password.switch'), exact: true }).click();
    await page.getByRole('button', { name: t.en('profile.password.confirm'), exact: true }).waitFor();
    await expectAccessible(page, 'the profile asking before the password goes');

    await page.goto('/profile/credentials/totp/setup');
    await page.getByRole('heading', { name: t.en('profile.totp_title'), exact: true }).waitFor();
    await page.getByLabel(t.en('profile.totp.code'), { exact: true }).waitFor();
    await expectAccessible(page, 'the authenticator setup');
  });

  it("the console's accounts: the search, a result, the Change email dialog and dark mode", async () => {
    const { page } = h;
    await signInAsOperator(h, h.context);
    const email = 'vera-axe@example.test';
    await createAccount(h.server.ctx.db, { email, name: 'Vera Axe', password: PASSWORD });

    await page.goto('/admin/accounts');
    await page.getByRole('heading', { name: t.en('admin.accounts'), exact: true }).waitFor();
    await expectAccessible(page, 'the accounts search');
    await page.getByLabel(t.en('admin.account.search_label'), { exact: true }).fill(email);
    await page.keyboard.press('Enter');
    const row = page.locator('.account-row', { hasText: email });
    await row.waitFor();
    await expectAccessible(page, 'the accounts list');

    await row.getByRole('button', { name: t.en('admin.email_change.open'), exact: true }).click();
    await page.getByRole('dialog', { name: t.en('admin.email_change.title') }).waitFor();
    await expectAccessible(page, 'the Change email dialog');

    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    await page.getByLabel(t.en('admin.dark_mode'), { exact: true }).check();
    await page.locator('html[data-theme="dark"]').waitFor({ state: 'attached' });
    await expectAccessible(page, 'the accounts list in dark mode');
  });
});
