import { createServer, type Server } from 'node:http';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Locator, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { lockoutPolicy, recordFailure } from '../../src/login/lockout.ts';
import { createAccount, createTenant, grantAccess } from '../fixtures/accounts.ts';
import { createTestContext, type TestContext } from '../helpers/context.ts';
import { startMailServer, type MailServer } from '../helpers/mail-server.ts';
import { freePort } from '../helpers/server.ts';
import { CHROMIUM_ARGS, ensurePortalBuilt, SHOTS_DIR } from './harness.ts';
import { t } from './texts.ts';

/**
 * Passkeys as a person uses them, in Chromium with a CDP virtual authenticator (a platform
 * authenticator with user verification, like Touch ID or Windows Hello): add a passkey on the
 * profile, sign in with it (no password, no TOTP), remove it.
 *
 * WebAuthn refuses IP addresses as RP IDs, so unlike the other journeys (harness.ts, on
 * 127.0.0.1) this server's issuer is http://localhost:<port> — a secure context, RP ID
 * `localhost` — and Chromium resolves localhost to the loopback address the server listens on.
 */
const PASSWORD = 'Correct-Horse-42!';

let mail: MailServer;
let ctx: TestContext;
let server: Server;
let base: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let pageErrors: string[] = [];


beforeAll(async () => {
  mkdirSync(SHOTS_DIR, { recursive: true });
  ensurePortalBuilt();
  mail = await startMailServer();
  const port = await freePort();
  base = `http://localhost:${port}`;
  ctx = await createTestContext({ smtpUrl: mail.url, env: { ISSUER: `${base}/oauth2` } });
  const { app } = await createApp(ctx);
  server = createServer(app);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [...CHROMIUM_ARGS, '--host-resolver-rules=MAP localhost 127.0.0.1'],
  });
});

beforeEach(async () => {
  context = await browser.newContext({ baseURL: base, locale: 'en-US', viewport: { width: 1024, height: 800 } });
  context.setDefaultTimeout(15_000);
  page = await context.newPage();
  pageErrors = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
});

afterEach(async ({ task }) => {
  if (task.result?.state === 'fail' && page && !page.isClosed()) {
    const path = join(SHOTS_DIR, `failed-passkey-${task.name.replace(/[^\w-]+/g, '-').slice(0, 60)}.png`);
    await page.screenshot({ path, fullPage: true }).catch(() => null);
    console.error(`screenshot of the failed test "${task.name}": ${path} (page ${page.url()})`);
  }
  await context?.close();
  if (pageErrors.length > 0) throw new Error(`uncaught errors in the page: ${pageErrors.join(' | ')}`);
});

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await ctx?.dispose();
  await mail?.close();
});

/** A platform authenticator with user verification on this page, as a laptop's fingerprint reader. */
async function addVirtualAuthenticator(target: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await target.context().newCDPSession(target);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  return { cdp, authenticatorId };
}

let counter = 0;
async function personWithTenant(name: string) {
  counter += 1;
  const email = `${name}-${counter}@example.test`;
  const accountId = await createAccount(ctx.db, { email, password: PASSWORD });
  const tenantName = `${name} Recruiting ${counter}`;
  await grantAccess(ctx.db, accountId, await createTenant(ctx.db, `${name}${counter}`, { name: tenantName }));
  return { email, accountId, tenantName };
}

async function startSignIn(target: Page, email: string) {
  await target.goto('/login');
  await target.getByLabel(t.en('login.start.email'), { exact: true }).fill(email);
  await target.getByRole('button', { name: t.en('login.start.submit'), exact: true }).click();
}

async function expectTenantSelection(target: Page, tenantName: string) {
  await target.waitForURL((url) => url.pathname === '/login/select-tenant');
  await target.getByRole('link', { name: new RegExp(tenantName) }).waitFor();
}

/** Email, then password: a whole password sign-in, ending on the tenant selection. */
async function signInWithPassword(target: Page, email: string, tenantName: string) {
  await startSignIn(target, email);
  await target.getByLabel(t.en('login.credentials.password'), { exact: true }).fill(PASSWORD);
  await target.getByRole('button', { name: t.en('login.credentials.submit'), exact: true }).click();
  await expectTenantSelection(target, tenantName);
}

const passkeyButton = (target: Page) => target.getByRole('button', { name: t.en('passkey.sign_in'), exact: true });
const passkeysRegion = (target: Page) => target.getByRole('region', { name: t.en('passkey.profile.title'), exact: true });

/** Whether the element is the page's document.activeElement (where a keyboard user goes on from). */
const isFocused = (locator: Locator) => locator.evaluate((element) => element === document.activeElement);

describe('passkeys in the browser', () => {
  it('adds a passkey on the profile, signs in with it alone, and removes it', async () => {
    const { email, accountId, tenantName } = await personWithTenant('pia');
    const { cdp, authenticatorId } = await addVirtualAuthenticator(page);

    // A password sign-in; no passkey yet, so no passkey button.
    await startSignIn(page, email);
    await page.getByLabel(t.en('login.credentials.password'), { exact: true }).waitFor();
    expect(await passkeyButton(page).count()).toBe(0);
    await page.getByLabel(t.en('login.credentials.password'), { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: t.en('login.credentials.submit'), exact: true }).click();
    await expectTenantSelection(page, tenantName);

    // Add a passkey: the browser's prompt is answered by the virtual authenticator.
    await page.goto('/profile');
    const region = passkeysRegion(page);
    await region.getByText(t.en('passkey.profile.empty'), { exact: true }).waitFor();
    await region.getByRole('button', { name: t.en('passkey.profile.add'), exact: true }).click();
    await region.getByText(t.en('passkey.profile.added'), { exact: true }).waitFor();
    const item = region.getByRole('listitem');
    await item.waitFor();
    const itemText = await item.innerText();
    expect(itemText).toContain(t.en('profile.devices.name', { browser: 'Chrome', os: 'Linux' }));
    expect(itemText).toContain(t.en('passkey.profile.never_used'));
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.rpId).toBe('localhost');
    await page.screenshot({ path: join(SHOTS_DIR, 'passkey-profile.png'), fullPage: true });

    // Signed out (cookies gone; the authenticator keeps its passkey): sign in with the passkey alone.
    await context.clearCookies();
    await startSignIn(page, email);
    await passkeyButton(page).waitFor();
    await page.screenshot({ path: join(SHOTS_DIR, 'passkey-credentials-step.png'), fullPage: true });
    await passkeyButton(page).click();
    await expectTenantSelection(page, tenantName);

    const signIn = await ctx.db('audit_events').where({ target_account_id: accountId, action: 'login.succeeded' }).orderBy('at', 'desc').first();
    expect(signIn.details).toMatchObject({ method: 'webauthn', amr: ['hwk', 'mfa'] });
    const signCount = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials[0]?.signCount;
    const stored = await ctx.db('credentials').where({ account_id: accountId, type: 'webauthn' }).first('counter', 'last_used_at');
    expect(Number(stored.counter)).toBe(signCount);
    expect(stored.last_used_at).toBeInstanceOf(Date);

    // Remove it again (the passkey sign-in just now is recent enough), after a confirmation.
    await page.goto('/profile');
    await passkeysRegion(page).getByRole('listitem').getByText(t.en('passkey.profile.last_used', { when: t.en('time.today') }), { exact: false }).waitFor();
    await passkeysRegion(page).getByRole('button', { name: new RegExp(`^${t.en('passkey.profile.remove')}`) }).click();
    const confirm = passkeysRegion(page).getByRole('group');
    await confirm.getByRole('button', { name: new RegExp(`^${t.en('passkey.profile.remove')}`) }).click();
    await passkeysRegion(page).getByText(t.en('passkey.profile.removed'), { exact: true }).waitFor();
    await passkeysRegion(page).getByText(t.en('passkey.profile.empty'), { exact: true }).waitFor();
    expect(await ctx.db('credentials').where({ account_id: accountId, type: 'webauthn' })).toEqual([]);
  });

  it('keeps keyboard focus: on the message after adding, on Remove after Escape or Keep in the confirmation', async () => {
    const { email, tenantName } = await personWithTenant('kim');
    await addVirtualAuthenticator(page);
    await signInWithPassword(page, email, tenantName);

    await page.goto('/profile');
    const region = passkeysRegion(page);
    await region.getByText(t.en('passkey.profile.empty'), { exact: true }).waitFor();
    await region.getByRole('button', { name: t.en('passkey.profile.add'), exact: true }).focus();
    await page.keyboard.press('Enter');
    const added = region.getByRole('status').filter({ hasText: t.en('passkey.profile.added') });
    await added.waitFor();
    await expect.poll(() => isFocused(added)).toBe(true);
    await region.getByRole('listitem').waitFor();

    // Only one Remove at a time: the item's own, or the confirmation's in its place.
    const remove = region.getByRole('button', { name: new RegExp(`^${t.en('passkey.profile.remove')}`) });
    const confirm = region.getByRole('group');
    await remove.focus();
    await page.keyboard.press('Enter');
    await confirm.waitFor();
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    await expect.poll(() => isFocused(remove)).toBe(true);

    await page.keyboard.press('Enter');
    await confirm.waitFor();
    await confirm.getByRole('button', { name: t.en('passkey.profile.keep'), exact: true }).focus();
    await page.keyboard.press('Enter');
    await confirm.waitFor({ state: 'detached' });
    await expect.poll(() => isFocused(remove)).toBe(true);
    expect(await region.getByRole('listitem').count()).toBe(1);
  });

  it('tells an operator signed in with the password to use the passkey, focuses it, and returns to the profile', async () => {
    const { email, accountId, tenantName } = await personWithTenant('olga');
    await addVirtualAuthenticator(page);

    // The passkey is added while the account is no operator yet; then it becomes one.
    await signInWithPassword(page, email, tenantName);
    await page.goto('/profile');
    await passkeysRegion(page).getByRole('button', { name: t.en('passkey.profile.add'), exact: true }).click();
    await passkeysRegion(page).getByText(t.en('passkey.profile.added'), { exact: true }).waitFor();
    await ctx.db('operator_roles').insert({ account_id: accountId, role: 'admin' });

    // Signed in again with the password alone: changing sign-in methods needs the second factor.
    await context.clearCookies();
    await signInWithPassword(page, email, tenantName);
    await page.goto('/profile');
    await passkeysRegion(page).getByRole('button', { name: t.en('passkey.profile.add'), exact: true }).click();
    await page.getByRole('alert').filter({ hasText: t.en('profile.reauth.second_factor_body') }).waitFor();
    expect(await page.getByText(t.en('profile.reauth.body'), { exact: true }).count()).toBe(0);
    await page.screenshot({ path: join(SHOTS_DIR, 'passkey-operator-reauth.png'), fullPage: true });

    // /login asks for the passkey (focused) rather than the password that was just refused.
    await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.get('second_factor') === '1' && url.searchParams.get('return_to') === '/profile');
    await page.getByText(t.en('login.credentials.second_factor_passkey'), { exact: true }).waitFor();
    await expect.poll(() => passkeyButton(page).evaluate((button) => button === document.activeElement)).toBe(true);
    await page.getByLabel(t.en('login.credentials.password'), { exact: true }).waitFor();
    await page.screenshot({ path: join(SHOTS_DIR, 'passkey-operator-login.png'), fullPage: true });
    await passkeyButton(page).click();
    await page.waitForURL((url) => url.pathname === '/profile');

    // Signed in with the passkey, the authenticator app can be set up.
    await page.goto('/profile/credentials/totp/setup');
    await page.getByRole('group', { name: t.en('profile.totp.secret_label'), exact: true }).locator('code').waitFor();
  });

  it('signs in with the passkey while wrong passwords from elsewhere hold the address locked', async () => {
    const { email, tenantName } = await personWithTenant('lars');
    await addVirtualAuthenticator(page);
    await signInWithPassword(page, email, tenantName);
    await page.goto('/profile');
    await passkeysRegion(page).getByRole('button', { name: t.en('passkey.profile.add'), exact: true }).click();
    await passkeysRegion(page).getByText(t.en('passkey.profile.added'), { exact: true }).waitFor();

    // Someone guesses the password ten times from their own browser: the address is locked.
    const meta = { accountId: null, method: 'password', reason: 'invalid_credentials', ip: null, userAgent: null };
    for (let i = 0; i < lockoutPolicy.maxFailures; i += 1) await recordFailure(ctx, email, meta).catch(() => {});
    // This browser as a new one (no session, no known-browser cookie), as a borrowed laptop would be.
    await context.clearCookies();
    await startSignIn(page, email);
    await page.getByLabel(t.en('login.credentials.password'), { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: t.en('login.credentials.submit'), exact: true }).click();
    await page.getByRole('alert').filter({ hasText: t.en('errors.account_locked_minutes_other', { count: 15 }) }).waitFor();
    // No upstream provider is configured here: the hint names the passkey alone.
    await page.getByText(t.en('login.locked_passkey'), { exact: true }).waitFor();
    await page.screenshot({ path: join(SHOTS_DIR, 'passkey-while-locked.png'), fullPage: true });

    await passkeyButton(page).click();
    await expectTenantSelection(page, tenantName);
  });

  it('hides the passkey button in a browser without WebAuthn and keeps the password form', async () => {
    const { email, accountId } = await personWithTenant('nils');
    await ctx.db('credentials').insert({ account_id: accountId, type: 'webauthn', subject: `browserless-${counter}`, public_key: Buffer.alloc(32) });
    await page.addInitScript(() => {
      // As in a browser without WebAuthn.
      Object.defineProperty(window, 'PublicKeyCredential', { value: undefined, configurable: true });
    });
    await startSignIn(page, email);
    await page.getByLabel(t.en('login.credentials.password'), { exact: true }).waitFor();
    expect(await passkeyButton(page).count()).toBe(0);
  });

  it('shows the passkey button in Swedish and tells a cancelled prompt apart', async () => {
    const { email, accountId } = await personWithTenant('sara');
    // A passkey this browser's authenticator does not hold: the browser's prompt ends without one.
    await ctx.db('credentials').insert({ account_id: accountId, type: 'webauthn', subject: `elsewhere-${counter}`, public_key: Buffer.alloc(32) });
    const { cdp, authenticatorId } = await addVirtualAuthenticator(page);
    await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: false });
    await page.goto('/login?lang=sv');
    await page.getByLabel(t.sv('login.start.email'), { exact: true }).fill(email);
    await page.getByRole('button', { name: t.sv('login.start.submit'), exact: true }).click();
    const button = page.getByRole('button', { name: t.sv('passkey.sign_in'), exact: true });
    await button.click();
    await page.getByRole('alert').filter({ hasText: t.sv('passkey.errors.cancelled') }).waitFor({ timeout: 30_000 });
    // The step stays: the password form is still there to use.
    await page.getByLabel(t.sv('login.credentials.password'), { exact: true }).waitFor();
  });
});
