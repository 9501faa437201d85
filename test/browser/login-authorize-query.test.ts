import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertClient } from '../../src/oidc/clients.ts';
import { createAccount, createTenant, grantAccess } from '../fixtures/accounts.ts';
import { useBrowserHarness } from './harness.ts';
import { t } from './texts.ts';

/**
 * Spec section 2, Done: "if client_id is present go to /oauth2/authorize with the current query".
 * A relying party may link straight to /login with its whole authorization request (as README's
 * demo-spa example does with /oauth2/authorize): after signing in the person must end at the
 * relying party's redirect_uri with a code, not on the tenant selection. A public client (PKCE,
 * like demo-spa) with its callback on a loopback page stands in for the relying party.
 */
const h = useBrowserHarness();
const password = 'Direct-Request-7!';
const email = 'direct-rp@example.test';
const clientId = 'direct-spa';

let rp: Server;
let rpBase: string;

beforeAll(async () => {
  const accountId = await createAccount(h.server.ctx.db, { email, password, name: 'Dana Direct' });
  // With a tenant, so the tenant selection would show (and be wrong) if Done went there.
  await grantAccess(h.server.ctx.db, accountId, await createTenant(h.server.ctx.db, 'directco', { name: 'Direct Co' }));
  rp = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Relying party callback</h1>'));
  await new Promise<void>((resolve) => rp.listen(0, '127.0.0.1', resolve));
  rpBase = `http://127.0.0.1:${(rp.address() as AddressInfo).port}`;
  await upsertClient(h.server.ctx.db, { client_id: clientId, public: true, redirect_uris: [`${rpBase}/callback`] });
});

afterAll(async () => {
  rp?.closeAllConnections();
  await new Promise((resolve) => rp?.close(resolve));
});

describe('/login with an authorization request in its query (client_id and response_type, no interaction)', () => {
  it('Done goes to /oauth2/authorize with that query and ends at the redirect_uri with a code that redeems', async () => {
    const { page } = h;
    const verifier = randomBytes(32).toString('base64url');
    const state = randomBytes(8).toString('hex');
    const redirectUri = `${rpBase}/callback`;
    const request = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: redirectUri,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      scope: 'openid',
      state,
    });

    await page.goto(`/login?${request}`);
    await page.getByLabel(t.en('login.start.email'), { exact: true }).fill(email);
    await page.getByRole('button', { name: t.en('login.start.submit'), exact: true }).click();
    await page.getByLabel(t.en('login.credentials.password'), { exact: true }).fill(password);
    await page.getByRole('button', { name: t.en('login.credentials.submit'), exact: true }).click();

    await page.waitForURL((url) => url.origin === rpBase, { timeout: 15_000 }).catch(() => {
      throw new Error(`ended on ${page.url()}, not at the relying party`);
    });
    const callback = new URL(page.url());
    expect(callback.pathname).toBe('/callback');
    expect(callback.searchParams.get('error')).toBeNull();
    expect(callback.searchParams.get('state')).toBe(state);
    const code = callback.searchParams.get('code');
    expect(code).toBeTruthy();

    // The code is a real one: the relying party redeems it with its PKCE verifier.
    const discovery = (await (await fetch(`${h.server.issuer}/.well-known/openid-configuration`)).json()) as { token_endpoint: string };
    const token = await fetch(discovery.token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: code!, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier }),
    });
    expect(token.status).toBe(200);
    expect(((await token.json()) as { id_token?: string }).id_token).toBeTruthy();
  });
});

describe("a relying party's login_hint", () => {
  it('fills in the address and waits: nothing is mailed until the person continues', async () => {
    const { page } = h;
    const stranger = 'hinted-stranger@example.test';
    const request = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: `${rpBase}/callback`,
      code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
      code_challenge_method: 'S256',
      scope: 'openid',
      login_hint: stranger,
    });

    await page.goto(`/oauth2/authorize?${request}`);
    await page.waitForURL((url) => url.pathname === '/login');
    const field = page.getByLabel(t.en('login.start.email'), { exact: true });
    await expect.poll(() => field.inputValue()).toBe(stranger);
    // Still the first step, and the address (no account: it would get a mail) got nothing.
    expect(await page.getByRole('button', { name: t.en('login.start.submit'), exact: true }).isEnabled()).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(h.mail.to(stranger)).toHaveLength(0);

    // The person may correct it, and goes on as usual.
    await field.fill(email);
    await page.getByRole('button', { name: t.en('login.start.submit'), exact: true }).click();
    await page.getByLabel(t.en('login.credentials.password'), { exact: true }).waitFor();
  });
});
