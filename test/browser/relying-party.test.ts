import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertClient } from '../../src/oidc/clients.ts';
import { createAccount } from '../fixtures/accounts.ts';
import { useBrowserHarness } from './harness.ts';
import { t } from './texts.ts';

/**
 * A tiny relying party on loopback, written as any app would be with openid-client: its page
 * sends the browser to Nyckel, the person signs in on the real /login in Chromium, and the
 * callback shows the email from the validated ID token.
 */
const h = useBrowserHarness();
const password = 'Relying-Party-7!';
const email = 'rp-browser@example.test';

let rp: Server;
let rpBase: string;

beforeAll(async () => {
  await createAccount(h.server.ctx.db, { email, password, name: 'Rut Relying' });
  rp = createServer();
  await new Promise<void>((resolve) => rp.listen(0, '127.0.0.1', resolve));
  rpBase = `http://127.0.0.1:${(rp.address() as AddressInfo).port}`;
  await upsertClient(h.server.ctx.db, {
    client_id: 'tiny-rp',
    redirect_uris: [`${rpBase}/callback`],
    client_secret: 'tiny-rp-secret-0123456789',
  });
  const config = await client.discovery(new URL(h.server.issuer), 'tiny-rp', 'tiny-rp-secret-0123456789', undefined, {
    execute: [client.allowInsecureRequests],
  });
  // One pending sign-in at a time is enough for this page; a real app keeps these per browser.
  const pending = { verifier: '', state: '', nonce: '' };
  rp.on('request', async (req, res) => {
    const url = new URL(req.url ?? '/', rpBase);
    try {
      if (url.pathname === '/') {
        Object.assign(pending, { verifier: client.randomPKCECodeVerifier(), state: client.randomState(), nonce: client.randomNonce() });
        const authorize = client.buildAuthorizationUrl(config, {
          redirect_uri: `${rpBase}/callback`,
          scope: 'openid email profile',
          code_challenge: await client.calculatePKCECodeChallenge(pending.verifier),
          code_challenge_method: 'S256',
          state: pending.state,
          nonce: pending.nonce,
        });
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<h1>Tiny RP</h1><a href="${authorize.href.replace(/&/g, '&amp;')}">Sign in with Nyckel</a>`);
      } else if (url.pathname === '/callback') {
        const tokens = await client.authorizationCodeGrant(config, url, {
          pkceCodeVerifier: pending.verifier,
          expectedState: pending.state,
          expectedNonce: pending.nonce,
        });
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<h1>Signed in</h1><p id="email">${String(tokens.claims()?.email)}</p>`);
      } else res.writeHead(404).end();
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`RP error: ${(error as Error).message}`);
    }
  });
});

afterAll(async () => {
  rp?.closeAllConnections();
  await new Promise((resolve) => rp?.close(resolve));
});

describe('a relying party page', () => {
  it('signs a person in through the real /login and shows the email from the ID token', async () => {
    const { page } = h;
    await page.goto(rpBase);
    await page.getByRole('link', { name: 'Sign in with Nyckel' }).click();

    await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.get('client_id') === 'tiny-rp');
    await page.getByLabel(t.en('login.start.email'), { exact: true }).fill(email);
    await page.getByRole('button', { name: t.en('login.start.submit'), exact: true }).click();
    await page.getByLabel(t.en('login.credentials.password'), { exact: true }).fill(password);
    await page.getByRole('button', { name: t.en('login.credentials.submit'), exact: true }).click();

    await page.waitForURL(`${rpBase}/callback?**`);
    expect(await page.locator('#email').innerText()).toBe(email);
  });

  it('signs in again without a login page while the Nyckel session lasts', async () => {
    const { page } = h;
    await page.goto(rpBase);
    await page.getByRole('link', { name: 'Sign in with Nyckel' }).click();
    await page.waitForURL((url) => url.pathname === '/login');
    await page.getByLabel(t.en('login.start.email'), { exact: true }).fill(email);
    await page.getByRole('button', { name: t.en('login.start.submit'), exact: true }).click();
    await page.getByLabel(t.en('login.credentials.password'), { exact: true }).fill(password);
    await page.getByRole('button', { name: t.en('login.credentials.submit'), exact: true }).click();
    await page.waitForURL(`${rpBase}/callback?**`);

    await page.goto(rpBase);
    await page.getByRole('link', { name: 'Sign in with Nyckel' }).click();
    await page.waitForURL(`${rpBase}/callback?**`);
    expect(await page.locator('#email').innerText()).toBe(email);
  });
});
