import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertClient } from '../../src/oidc/clients.ts';
import { createTenant } from '../fixtures/accounts.ts';
import { pkceAuthorization } from '../helpers/authorization.ts';
import { BrowserLike } from '../helpers/browser-like.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { browserOf, createPerson, type Person } from './harness.ts';

/**
 * A tenant app reading notifications with the access token of a "log in as" sign-in: the token
 * obeys the impersonation's limits, as at userinfo. It reads only the tenant the operator logged
 * in to, and stops working when the operator loses the admin role. Driven as in
 * impersonation.test.ts: the operator's browser and the tenant app's openid-client, on a real port.
 */
let server: TestServer;
let rp: client.Configuration;
const redirectUri = 'http://127.0.0.1:9/callback';

let target: Person;
let acme: string;
let beta: string;

const person = (name: string, role?: 'admin') => createPerson(server, name, role);
/** The operator's browser, signed in to the console with a second factor. */
const operatorBrowser = async (operator: Person) => (await browserOf(server, operator)).browser;

/** Log in as `target` at `tenantId` from the console, then the tenant app's sign-in and code exchange. */
async function impersonatedAccessToken(browser: BrowserLike, tenantId: string): Promise<string> {
  const started = await browser.json<{ url: string }>('/api/impersonations', { tenant_id: tenantId, as: 'user', account_id: target.id, reason: 'Ticket 7' });
  expect(started.status).toBe(201);
  await browser.follow(started.body.url);
  const { url, verifier, state } = await pkceAuthorization(rp, { redirect_uri: redirectUri, scope: 'openid email', prompt: 'consent' }, { nonce: false });
  const callback = (await browser.followThroughForms(url.toString())).url;
  const tokens = await client.authorizationCodeGrant(rp, callback, { pkceCodeVerifier: verifier, expectedState: state });
  expect(tokens.claims()!.act).toBeDefined();
  return tokens.access_token;
}

/** What the tenant app gets: the messages of a 200, or the error type of a refusal. */
async function readNotifications(token: string, tenantId: string): Promise<{ status: number; messages?: string[]; error?: string }> {
  const response = await fetch(`${server.base}/api/notifications?tenant=${tenantId}`, { headers: { authorization: `Bearer ${token}` } });
  const body: unknown = await response.json();
  if (Array.isArray(body)) return { status: response.status, messages: body.map((n: { message: string }) => n.message) };
  return { status: response.status, error: (body as { detail?: { type: string }[] }).detail?.[0]?.type };
}

beforeAll(async () => {
  server = await startTestServer();
  await upsertClient(server.ctx.db, { client_id: 'tenant-app', redirect_uris: [redirectUri], client_secret: 'tenant-app-secret-0123456789' });
  rp = await client.discovery(new URL(server.issuer), 'tenant-app', 'tenant-app-secret-0123456789', undefined, { execute: [client.allowInsecureRequests] });
  target = await person('tove-target');
  acme = await createTenant(server.ctx.db, 'acme', { name: 'Acme' });
  beta = await createTenant(server.ctx.db, 'beta', { name: 'Beta' });
  await server.ctx.db('tenant_access').insert([
    { account_id: target.id, tenant_id: acme, role: 'user', active: true },
    { account_id: target.id, tenant_id: beta, role: 'user', active: true },
  ]);
  await server.ctx.db('notifications').insert([
    { message: 'for acme', tenants: JSON.stringify([acme]), created_at: server.ctx.now() },
    { message: 'for beta', tenants: JSON.stringify([beta]), created_at: server.ctx.now() },
  ]);
});

afterAll(async () => {
  await server?.close();
});

describe('notifications read with the token of an impersonated sign-in', () => {
  it("answers the impersonated tenant's, and refuses another of the person's tenants (403)", async () => {
    const token = await impersonatedAccessToken(await operatorBrowser(await person('olof-admin', 'admin')), acme);
    const own = await readNotifications(token, acme);
    expect(own).toEqual({ status: 200, messages: ['for acme'] });
    expect(await readNotifications(token, beta)).toEqual({ status: 403, error: 'forbidden' });
  });

  it('401 once the operator has lost the admin role', async () => {
    const operator = await person('rakel-revoked', 'admin');
    const token = await impersonatedAccessToken(await operatorBrowser(operator), acme);
    expect((await readNotifications(token, acme)).status).toBe(200);
    await server.ctx.db('operator_roles').where({ account_id: operator.id }).delete();
    expect(await readNotifications(token, acme)).toEqual({ status: 401, error: 'invalid_token' });
  });
});
