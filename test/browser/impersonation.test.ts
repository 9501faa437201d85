import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as client from 'openid-client';
import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertClient } from '../../src/oidc/clients.ts';
import { createAccount } from '../fixtures/accounts.ts';
import { useBrowserHarness } from './harness.ts';
import { signInAsOperator as signOperatorIn } from './operator-session.ts';
import { t } from './texts.ts';

/**
 * "Log in as user / as tenant admin" from the console in Chromium, to a tiny tenant app on
 * loopback written with openid-client: its tenant page starts a sign-in at once, and its callback
 * shows who signed in and who acted (the ID token's sub, email and act).
 */
const h = useBrowserHarness();

let app: Server;
let appBase: string;
let tenantId: string;
let adminEmail: string;
let userEmail: string;

beforeAll(async () => {
  app = createServer();
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  appBase = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  const db = h.server.ctx.db;
  await upsertClient(db, { client_id: 'tenant-app', redirect_uris: [`${appBase}/callback`], client_secret: 'tenant-app-secret-0123456789' });
  const [tenant] = await db('tenants').insert({ name: 'Impersonation Tenant', slug: 'imptenant', url: `${appBase}/imptenant` }).returning('id');
  tenantId = tenant.id;
  adminEmail = 'tove.tenantadmin@example.test';
  userEmail = 'ulf.user@example.test';
  const adminId = await createAccount(db, { email: adminEmail, name: 'Tove Tenantadmin' });
  const userId = await createAccount(db, { email: userEmail, name: 'Ulf User' });
  await db('tenant_access').insert([
    { account_id: adminId, tenant_id: tenantId, role: 'admin', active: true },
    { account_id: userId, tenant_id: tenantId, role: 'user', active: true },
  ]);

  const config = await client.discovery(new URL(h.server.issuer), 'tenant-app', 'tenant-app-secret-0123456789', undefined, {
    execute: [client.allowInsecureRequests],
  });
  const pending = { verifier: '', state: '', nonce: '' };
  app.on('request', async (req, res) => {
    const url = new URL(req.url ?? '/', appBase);
    try {
      if (url.pathname === '/imptenant') {
        // The tenant's page signs in through Nyckel when the app has no session of its own.
        Object.assign(pending, { verifier: client.randomPKCECodeVerifier(), state: client.randomState(), nonce: client.randomNonce() });
        const authorize = client.buildAuthorizationUrl(config, {
          redirect_uri: `${appBase}/callback`,
          scope: 'openid email profile tenants',
          code_challenge: await client.calculatePKCECodeChallenge(pending.verifier),
          code_challenge_method: 'S256',
          state: pending.state,
          nonce: pending.nonce,
        });
        res.writeHead(302, { location: authorize.href }).end();
      } else if (url.pathname === '/callback') {
        const tokens = await client.authorizationCodeGrant(config, url, {
          pkceCodeVerifier: pending.verifier,
          expectedState: pending.state,
          expectedNonce: pending.nonce,
        });
        const claims = tokens.claims()!;
        const act = claims.act as { email?: string } | undefined;
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(`<h1>Tenant app</h1><p id="email">${String(claims.email)}</p><p id="act">${act?.email ?? 'none'}</p>`);
      } else res.writeHead(404).end();
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`app error: ${(error as Error).message}`);
    }
  });
});

afterAll(async () => {
  app?.closeAllConnections();
  await new Promise((resolve) => app?.close(resolve));
});

/** An operator (admin role) with a second factor, signed in by a portal session made in the store. */
async function signInAsOperator(page: Page): Promise<{ email: string; id: string }> {
  const { email, accountId } = await signOperatorIn(h, page.context());
  return { email, id: accountId };
}

async function auditFor(operatorId: string) {
  return h.server.ctx.db('audit_events').where({ action: 'operator.impersonation.started', actor_id: operatorId });
}

describe('log in as admin from the tenants page', () => {
  it('Enter on the highlight asks for a reason, then the tenant app signs in as its admin with act naming the operator', async () => {
    const { page } = h;
    const operator = await signInAsOperator(page);
    await page.goto('/admin/tenants');
    const search = page.getByLabel(t.en('admin.tenant.search_label'), { exact: true });
    await search.waitFor();
    await page.getByText(t.en('impersonation.search_hint'), { exact: true }).waitFor();
    await page.keyboard.type('imptenant');
    await page.keyboard.press('Enter');
    await page.locator('.admin-rows > li').first().waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');

    const modal = page.getByRole('dialog', { name: t.en('impersonation.title_admin', { tenant: 'Impersonation Tenant' }) });
    await modal.waitFor();
    const reason = modal.getByLabel(t.en('impersonation.reason'), { exact: true });
    expect(await reason.evaluate((field) => field === document.activeElement)).toBe(true);
    // Nothing happens without a reason.
    expect(await modal.getByRole('button', { name: t.en('impersonation.submit'), exact: true }).isDisabled()).toBe(true);
    await page.keyboard.press('Enter');
    await modal.getByText(t.en('impersonation.reason_required'), { exact: true }).waitFor();
    await h.shot('impersonation-reason-modal');

    await page.keyboard.type('Customer asked us to set up SMS');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${appBase}/callback?**`);
    expect(await page.locator('#email').innerText()).toBe(adminEmail);
    expect(await page.locator('#act').innerText()).toBe(operator.email);
    await h.shot('impersonation-tenant-app');

    const [event] = await auditFor(operator.id);
    expect(event).toMatchObject({ target_account_id: expect.any(String), tenant_id: tenantId });
    expect(event.details).toMatchObject({ reason: 'Customer asked us to set up SMS', as: 'admin', operator_email: operator.email });
  });

  it('Shift+Enter opens the details; a user is logged in as from the users table; Escape cancels the modal', async () => {
    const { page } = h;
    const operator = await signInAsOperator(page);
    await page.goto('/admin/tenants');
    await page.getByLabel(t.en('admin.tenant.search_label'), { exact: true }).waitFor();
    await page.keyboard.type('imptenant');
    await page.keyboard.press('Enter');
    const row = page.locator('.admin-rows > li').first();
    await row.waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Shift+Enter');
    expect(await row.getByRole('button', { name: 'Impersonation Tenant', exact: true }).getAttribute('aria-expanded')).toBe('true');

    const loginAsUser = row.getByRole('button', { name: t.en('impersonation.login_as_user_named', { who: userEmail }) });
    await loginAsUser.click();
    const modal = page.getByRole('dialog', { name: t.en('impersonation.title_user', { who: 'Ulf User', tenant: 'Impersonation Tenant' }) });
    await modal.waitFor();
    await page.keyboard.press('Escape');
    await modal.waitFor({ state: 'hidden' });
    expect(await auditFor(operator.id)).toHaveLength(0);

    await loginAsUser.click();
    await modal.waitFor();
    await modal.getByLabel(t.en('impersonation.reason'), { exact: true }).fill('Ticket 77: missing candidates');
    // Sent, its answer held back: Escape no longer closes the modal, which says it is busy, and
    // the hand-off goes on when the answer comes.
    const held = new Promise<Route>((resolve) => void page.route('**/api/impersonations', (route) => resolve(route), { times: 1 }));
    await modal.getByRole('button', { name: t.en('impersonation.submit'), exact: true }).click();
    const route = await held;
    await page.keyboard.press('Escape');
    expect(await modal.isVisible()).toBe(true);
    expect(await modal.getByRole('button', { name: t.en('app.cancel'), exact: true }).isDisabled()).toBe(true);
    await route.continue();
    await page.waitForURL(`${appBase}/callback?**`);
    expect(await page.locator('#email').innerText()).toBe(userEmail);
    expect(await page.locator('#act').innerText()).toBe(operator.email);
  });
});

describe('log in as an account from the accounts page', () => {
  it("the account's active tenant badge leads to the same hand-off, in Swedish too", async () => {
    const { page } = h;
    const operator = await signInAsOperator(page);
    await page.goto('/admin/accounts?lang=sv');
    await page.getByLabel(t.sv('admin.account.search_label'), { exact: true }).waitFor();
    await page.keyboard.type('Ulf User');
    await page.keyboard.press('Enter');
    const badge = page.getByRole('button', { name: t.sv('impersonation.login_as_to', { who: 'Ulf User', tenant: 'Impersonation Tenant' }) });
    await badge.click();
    const modal = page.getByRole('dialog', { name: t.sv('impersonation.title_user', { who: 'Ulf User', tenant: 'Impersonation Tenant' }) });
    await modal.waitFor();
    await page.keyboard.type('Ärende 12');
    await h.shot('impersonation-reason-modal-sv');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${appBase}/callback?**`);
    expect(await page.locator('#email').innerText()).toBe(userEmail);
    expect(await page.locator('#act').innerText()).toBe(operator.email);
  });
});

describe('a hand-off that cannot be used', () => {
  it('returns to the console, which says why', async () => {
    const { page } = h;
    await signInAsOperator(page);
    await page.goto('/auth/impersonate/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    await page.waitForURL((url) => url.pathname === '/admin' && url.searchParams.get('impersonation_error') === 'expired');
    await page.getByRole('alert').filter({ hasText: t.en('impersonation.errors.expired') }).waitFor();
  });
});
