import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newTotpSecret, totpCodeAt } from '../../src/credentials/totp/totp.ts';
import { lockoutPolicy, recordFailure } from '../../src/login/lockout.ts';
import { createAccount, createTenant, grantAccess } from '../fixtures/accounts.ts';
import { startMailServer, type MailServer } from '../helpers/mail-server.ts';
import { freePort, startTestServer, type TestServer } from '../helpers/server.ts';
import { googleVerified } from '../upstream/journey.ts';
import { startUpstream, type TestUpstream } from '../upstream/upstream-provider.ts';
import { CHROMIUM_ARGS, ensurePortalBuilt } from './harness.ts';
import { t } from './texts.ts';

/**
 * "Sign in with Google" in Chromium against a real upstream OpenID provider on loopback. Nyckel
 * must know the upstream's issuer when it starts and the upstream Nyckel's redirect URI, so the
 * upstream's port is chosen first (this suite sets up its own server rather than the shared
 * harness, which takes no environment).
 */
let mail: MailServer;
let server: TestServer;
let google: TestUpstream;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const clientId = 'nyckel-browser';
const clientSecret = 'browser-upstream-secret-0123456789';


beforeAll(async () => {
  ensurePortalBuilt();
  mail = await startMailServer();
  const port = await freePort();
  server = await startTestServer({
    smtpUrl: mail.url,
    env: { GOOGLE_CLIENT_ID: clientId, GOOGLE_CLIENT_SECRET: clientSecret, GOOGLE_ISSUER: `http://127.0.0.1:${port}` },
  });
  google = await startUpstream({ kind: 'google', nyckelOrigin: server.base, port, clientId, clientSecret });
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
  });
});
afterAll(async () => {
  await browser?.close();
  await google?.close();
  await server?.close();
  await mail?.close();
});
beforeEach(async () => {
  context = await browser.newContext({ baseURL: server.base, locale: 'en-US' });
  context.setDefaultTimeout(10_000);
  page = await context.newPage();
});
afterEach(async ({ task }) => {
  if (task.result?.state === 'fail') await page.screenshot({ path: `/tmp/shots/failed-upstream-${task.name.replace(/\W+/g, '-').slice(0, 60)}.png` }).catch(() => {});
  await context?.close();
});

let counter = 0;
async function personWithTenant(options: { password?: string } = {}) {
  counter += 1;
  const email = `google-${counter}-${Date.now()}@example.test`;
  const accountId = await createAccount(server.ctx.db, { email, ...options });
  const tenantId = await createTenant(server.ctx.db, `upstream${counter}${Date.now() % 100000}`, { name: `Upstream Recruiting ${counter}` });
  await grantAccess(server.ctx.db, accountId, tenantId);
  return { email, accountId };
}

async function enterEmail(email: string) {
  await page.goto('/login');
  await page.getByLabel(t.en('login.start.email'), { exact: true }).fill(email);
  await page.getByRole('button', { name: t.en('login.start.submit'), exact: true }).click();
}

describe('Sign in with Google', () => {
  it('signs in through the upstream provider and lands on the tenant selection; the identity is linked', async () => {
    const { email, accountId } = await personWithTenant({ password: 'Correct-Horse-42!' });
    google.next({ account: { sub: `browser-${counter}`, ...googleVerified(email) } });
    await enterEmail(email);
    await page.getByRole('link', { name: t.en('login.credentials.google'), exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/login/select-tenant');
    await page.getByText(t.en('tenants.signed_in_as', { email }), { exact: true }).waitFor();
    const rows = await server.ctx.db('credentials').where({ account_id: accountId, type: 'oidc' }).select('subject');
    expect(rows).toEqual([{ subject: `browser-${counter}` }]);
  });

  it('sends a single-provider account to Google at once', async () => {
    const { email, accountId } = await personWithTenant();
    const sub = `single-${counter}`;
    await server.ctx.db('credentials').insert({
      account_id: accountId,
      type: 'oidc',
      provider: new URL(google.origin).host,
      subject: sub,
      data: JSON.stringify({ issuer: google.issuer, upstream: 'google' }),
    });
    google.next({ account: { sub } });
    // No button is clicked: the credentials step itself sends the browser to Google.
    const redirected = page.waitForRequest((req) => new URL(req.url()).pathname === '/auth/login/oauth/google');
    await enterEmail(email);
    await redirected;
    await page.waitForURL((url) => url.pathname === '/login/select-tenant');
    await page.getByText(t.en('tenants.signed_in_as', { email }), { exact: true }).waitFor();
  });

  it('comes back to the credentials step with the translated error when the person cancels', async () => {
    const { email } = await personWithTenant({ password: 'Correct-Horse-42!' });
    google.next({ error: 'access_denied' });
    await enterEmail(email);
    await page.getByRole('link', { name: t.en('login.credentials.google'), exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.get('error') === 'oauth/access_denied');
    await page.getByText(t.en('upstream.errors.access_denied'), { exact: true }).waitFor();
    await page.getByLabel(t.en('login.credentials.password'), { exact: true }).waitFor();
  });
});

describe('Google and the authenticator app while the address is locked', () => {
  it('signs in with Google and the code from a new browser while wrong passwords from elsewhere hold the address locked', async () => {
    const { email, accountId } = await personWithTenant({ password: 'Correct-Horse-42!' });
    const sub = `locked-${counter}`;
    const secret = newTotpSecret();
    await server.ctx.db('credentials').insert([
      { account_id: accountId, type: 'oidc', provider: new URL(google.origin).host, subject: sub, data: JSON.stringify({ issuer: google.issuer, upstream: 'google' }) },
      { account_id: accountId, type: 'totp', secret: server.ctx.secretBox.seal(secret) },
    ]);
    // Someone guesses the password ten times from their own browser: the address is locked.
    const meta = { accountId, method: 'password', reason: 'invalid_credentials', ip: null, userAgent: null };
    for (let i = 0; i < lockoutPolicy.maxFailures; i += 1) await recordFailure(server.ctx, email, meta).catch(() => {});

    await enterEmail(email);
    await page.getByLabel(t.en('login.credentials.password'), { exact: true }).fill('Correct-Horse-42!');
    await page.getByRole('button', { name: t.en('login.credentials.submit'), exact: true }).click();
    await page.getByRole('alert').filter({ hasText: t.en('errors.account_locked_minutes_other', { count: 15 }) }).waitFor();
    await page.getByText(t.en('login.locked_other_ways'), { exact: true }).waitFor();

    google.next({ account: { sub } });
    await page.getByRole('link', { name: t.en('login.credentials.google'), exact: true }).click();
    await page.getByRole('heading', { name: t.en('login.mfa.title'), exact: true }).waitFor();
    await page.getByLabel(t.en('login.mfa.code'), { exact: true }).fill(await totpCodeAt(secret, server.ctx.now()));
    await page.getByRole('button', { name: t.en('login.mfa.submit'), exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/login/select-tenant');
    await page.getByText(t.en('tenants.signed_in_as', { email }), { exact: true }).waitFor();
  });
});

describe('Unlinking Google on the profile', () => {
  it('sends a sign-in older than five minutes through /login and back to /profile before unlinking', async () => {
    const password = 'Correct-Horse-42!';
    const { email, accountId } = await personWithTenant({ password });
    await server.ctx.db('credentials').insert({
      account_id: accountId,
      type: 'oidc',
      provider: new URL(google.origin).host,
      subject: `unlink-${counter}`,
      data: JSON.stringify({ issuer: google.issuer, upstream: 'google' }),
    });
    await enterEmail(email);
    await page.getByLabel(t.en('login.credentials.password'), { exact: true }).fill(password);
    await page.getByRole('button', { name: t.en('login.credentials.submit'), exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/login/select-tenant');
    await page.goto('/profile');
    const googleSwitch = page.getByRole('switch', { name: t.en('upstream.switches.label', { provider: t.en('provider.google') }), exact: true });
    await googleSwitch.waitFor();
    expect(await googleSwitch.isChecked()).toBe(true);

    // Six minutes later (server clock) the same session unlinks Google.
    server.ctx.advance(6 * 60_000);
    await googleSwitch.click();
    await page.getByRole('button', { name: t.en('upstream.switches.confirm'), exact: true }).click();
    await page.getByRole('alert').filter({ hasText: t.en('profile.reauth.body') }).waitFor();
    expect(await page.getByText(t.en('errors.failed_to_remove_auth_method'), { exact: true }).count()).toBe(0);
    await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.get('email') === email && url.searchParams.get('return_to') === '/profile');
    await page.getByLabel(t.en('login.credentials.password'), { exact: true }).fill(password);
    await page.getByRole('button', { name: t.en('login.credentials.submit'), exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/profile');

    // Signed in afresh, the unlink goes through.
    await googleSwitch.click();
    await page.getByRole('button', { name: t.en('upstream.switches.confirm'), exact: true }).click();
    await page.getByText(t.en('upstream.switches.unlinked', { provider: t.en('provider.google') }), { exact: true }).waitFor();
    await expect.poll(() => googleSwitch.isChecked()).toBe(false);
    expect(await server.ctx.db('credentials').where({ account_id: accountId, type: 'oidc' }).count('* as n')).toEqual([{ n: 0 }]);
  });
});
