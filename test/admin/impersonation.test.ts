import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertClient } from '../../src/oidc/clients.ts';
import { listPortalSessions } from '../../src/session/portal-session.ts';
import { createTenant } from '../fixtures/accounts.ts';
import { pkceAuthorization, type PkceAuthorization } from '../helpers/authorization.ts';
import { BrowserLike } from '../helpers/browser-like.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { browserOf as browserOfPerson, createPerson, type Person } from './harness.ts';

/**
 * "Log in as user / as tenant admin": an operator's one-time hand-off to the tenant's app, driven
 * as a browser and a relying party (openid-client) would, against the real app on a real port.
 * The tenant app answers at http://127.0.0.1:9 (never contacted: the browser stops where it leaves
 * Nyckel); its tenants' URLs share that origin (test/fixtures createTenant).
 */
let server: TestServer;
let rp: client.Configuration;
const appOrigin = 'http://127.0.0.1:9';
const redirectUri = `${appOrigin}/callback`;

let admin: Person;
let support: Person;
let nobody: Person;
let target: Person;
let tenantAdmin: Person;
let tenantId: string;
let otherTenantId: string;

const person = (name: string, role?: 'admin' | 'support') => createPerson(server, name, role);
const browserOf = (who: Person, amr?: string[]) => browserOfPerson(server, who, amr);

function impersonate(browser: BrowserLike, body: Record<string, unknown>) {
  return browser.json<{ url: string; expires_in: number; account_id: string; detail?: { type: string }[] }>('/api/impersonations', body);
}

type Authorization = PkceAuthorization;

/** What the tenant app does on its sign-in page: an authorization request with PKCE, state and nonce. */
async function appAuthorization(scope = 'openid email profile tenants offline_access'): Promise<Authorization> {
  return pkceAuthorization(rp, { redirect_uri: redirectUri, scope, prompt: 'consent' });
}

/** The app's callback: the code exchanged with every check openid-client makes. */
function exchange(callback: URL, authorization: Authorization) {
  return client.authorizationCodeGrant(rp, callback, {
    pkceCodeVerifier: authorization.verifier,
    expectedState: authorization.state,
    expectedNonce: authorization.nonce,
  });
}

/** Until the browser leaves Nyckel for the tenant app (through oidc-provider's self-submitting logout form if one comes). */
const followAll = async (browser: BrowserLike, start: string) => (await browser.followThroughForms(start)).url;

async function auditRows(targetId: string, action = 'operator.impersonation.started') {
  return server.ctx.db('audit_events').where({ action, target_account_id: targetId }).orderBy('id');
}

beforeAll(async () => {
  server = await startTestServer();
  await upsertClient(server.ctx.db, { client_id: 'tenant-app', redirect_uris: [redirectUri], client_secret: 'tenant-app-secret-0123456789' });
  await upsertClient(server.ctx.db, { client_id: 'elsewhere', redirect_uris: ['http://127.0.0.1:10/callback'], client_secret: 'elsewhere-secret-0123456789' });
  rp = await client.discovery(new URL(server.issuer), 'tenant-app', 'tenant-app-secret-0123456789', undefined, { execute: [client.allowInsecureRequests] });

  admin = await person('olle-admin', 'admin');
  support = await person('sara-support', 'support');
  nobody = await person('nils-nobody');
  target = await person('tina-target');
  tenantAdmin = await person('adam-tenantadmin');
  tenantId = await createTenant(server.ctx.db, 'acme', { name: 'Acme' });
  otherTenantId = await createTenant(server.ctx.db, 'beta', { name: 'Beta' });
  await server.ctx.db('tenant_access').insert([
    { account_id: target.id, tenant_id: tenantId, role: 'user', active: true },
    { account_id: target.id, tenant_id: otherTenantId, role: 'user', active: true },
    { account_id: tenantAdmin.id, tenant_id: tenantId, role: 'admin', active: true },
  ]);
});

afterAll(async () => {
  await server?.close();
});

describe('who may impersonate', () => {
  const body = () => ({ tenant_id: tenantId, as: 'user', account_id: target.id, reason: 'Ticket 42: cannot see candidates' });

  it('anonymous 401, a non-operator 403, the support role 403, an admin without a second factor 403', async () => {
    expect((await impersonate(new BrowserLike(server.base), body())).status).toBe(401);
    const refused = [await browserOf(nobody), await browserOf(support), await browserOf(admin, ['pwd'])];
    const answers = await Promise.all(refused.map(({ browser }) => impersonate(browser, body())));
    expect(answers.map((a) => [a.status, a.body.detail?.[0]?.type])).toEqual([
      [403, 'forbidden'],
      [403, 'forbidden'],
      [403, 'operator/mfa-required'],
    ]);
    expect(await auditRows(target.id)).toHaveLength(0);
  });

  it('refuses a request from another site', async () => {
    const { browser } = await browserOf(admin);
    const response = await browser.request('/api/impersonations', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
      body: JSON.stringify(body()),
    });
    expect(response.status).toBe(403);
  });

  it('requires a reason of at most 500 characters, and an account for "as user"', async () => {
    const { browser } = await browserOf(admin);
    for (const bad of [
      { ...body(), reason: '   ' },
      { ...body(), reason: 'x'.repeat(501) },
      { tenant_id: tenantId, as: 'user', reason: 'why' },
      { ...body(), as: 'root' },
    ]) {
      expect((await impersonate(browser, bad)).status, JSON.stringify(bad).slice(0, 80)).toBe(422);
    }
    expect((await impersonate(browser, { ...body(), reason: 'x'.repeat(500) })).status).toBe(201);
  });
});

describe('only where the tenant access is active', () => {
  it('refuses inactive access, a deactivated tenant, a tenant without an app, and an unknown account', async () => {
    const { browser } = await browserOf(admin);
    const leaver = await person('lars-leaver');
    await server.ctx.db('tenant_access').insert({ account_id: leaver.id, tenant_id: tenantId, active: false });
    const closedTenant = await createTenant(server.ctx.db, 'closed', { inactive: true });
    await server.ctx.db('tenant_access').insert({ account_id: leaver.id, tenant_id: closedTenant, active: true });
    const [appless] = await server.ctx.db('tenants').insert({ name: 'No App', slug: 'noapp', url: 'http://127.0.0.1:11/noapp' }).returning('id');
    await server.ctx.db('tenant_access').insert({ account_id: leaver.id, tenant_id: appless.id, active: true });

    const answer = (tenant: string, account: string) => impersonate(browser, { tenant_id: tenant, as: 'user', account_id: account, reason: 'check' });
    const results = [
      await answer(tenantId, leaver.id),
      await answer(closedTenant, leaver.id),
      await answer(otherTenantId, leaver.id),
      await answer(appless.id, leaver.id),
      await answer(tenantId, '00000000-0000-4000-8000-000000000000'),
    ];
    expect(results.map((r) => [r.status, r.body.detail?.[0]?.type])).toEqual([
      [409, 'impersonation/access-inactive'],
      [409, 'impersonation/access-inactive'],
      [409, 'impersonation/access-inactive'],
      [409, 'impersonation/no-tenant-app'],
      [404, 'not_found'],
    ]);
    expect(await auditRows(leaver.id)).toHaveLength(0);
  });
});

describe('log in as user', () => {
  it("hands the tenant app a sign-in as the person, with act naming the operator, audited, the person's sessions untouched", async () => {
    const own = await browserOf(target, ['pwd']);
    const before = (await listPortalSessions(server.ctx, target.id)).map((s) => s.id).sort();
    const { browser, sessionId } = await browserOf(admin);

    const started = await impersonate(browser, { tenant_id: tenantId, as: 'user', account_id: target.id, reason: '  Ticket 42: cannot see candidates  ' });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ expires_in: 60, account_id: target.id });
    expect(started.body.url).toMatch(new RegExp(`^${server.base}/auth/impersonate/[A-Za-z0-9_-]{43}$`));

    const event = (await auditRows(target.id)).at(-1);
    expect(event).toMatchObject({ actor_id: admin.id, target_account_id: target.id, tenant_id: tenantId });
    expect(event!.details).toMatchObject({ operator_email: admin.email, reason: 'Ticket 42: cannot see candidates', as: 'user', role: 'admin' });
    expect(event!.at).toBeInstanceOf(Date);

    // Until the hand-off is used, only its start is recorded.
    const usedBefore = (await auditRows(target.id, 'operator.impersonation.used')).length;
    // The browser lands on the tenant's app, which starts its own sign-in.
    const entry = await browser.follow(started.body.url);
    expect(entry.url.toString()).toBe(`${appOrigin}/acme`);
    const authorization = await appAuthorization();
    const callback = await followAll(browser, authorization.url.toString());
    expect(callback.origin + callback.pathname).toBe(redirectUri);
    // Used: recorded as the operator's, naming the app that got the sign-in.
    const used = await auditRows(target.id, 'operator.impersonation.used');
    expect(used).toHaveLength(usedBefore + 1);
    expect(used.at(-1)).toMatchObject({ actor_id: admin.id, target_account_id: target.id, tenant_id: tenantId });
    expect(used.at(-1)!.details).toEqual({ client_id: 'tenant-app', as: 'user', operator_email: admin.email });

    const tokens = await exchange(callback, authorization);
    const claims = tokens.claims()!;
    expect(claims.sub).toBe(target.id);
    expect(claims.email).toBe(target.email);
    expect(claims.act).toEqual({ sub: admin.id, email: admin.email });
    expect(claims.amr).toEqual(['imp']);
    // Only the impersonated tenant, though the person has two.
    expect((claims.tenants as { id: string }[]).map((t) => t.id)).toEqual([tenantId]);
    // One sign-in: no refresh token outlives it.
    expect(tokens.refresh_token).toBeUndefined();

    const userinfo = await client.fetchUserInfo(rp, tokens.access_token, target.id);
    expect(userinfo.act).toEqual({ sub: admin.id, email: admin.email });
    expect(await client.tokenIntrospection(rp, tokens.access_token)).toMatchObject({ active: true, sub: target.id, act: { sub: admin.id } });

    // The person's own portal sessions are exactly as before, and still work.
    expect((await listPortalSessions(server.ctx, target.id)).map((s) => s.id).sort()).toEqual(before);
    expect(before).toContain(own.sessionId);
    // The operator is still signed in to the console.
    expect((await browser.request('/api/operator')).status).toBe(200);
    expect(sessionId).toBeTruthy();
  });

  it("holds the tenant app's silent requests to what the hand-off granted: no wider scope without an interaction", async () => {
    const { browser } = await browserOf(admin);
    const started = await impersonate(browser, { tenant_id: tenantId, as: 'user', account_id: target.id, reason: 'silent renewal' });
    await browser.follow(started.body.url);
    const narrow = await appAuthorization('openid email');
    expect((await followAll(browser, narrow.url.toString())).searchParams.get('code')).toBeTruthy();

    const wider = await pkceAuthorization(rp, { redirect_uri: redirectUri, scope: 'openid email profile tenants', prompt: 'none' });
    const callback = await followAll(browser, wider.url.toString());
    expect(callback.origin + callback.pathname).toBe(redirectUri);
    expect(callback.searchParams.get('code')).toBeNull();
    expect(callback.searchParams.get('error')).toBe('interaction_required');
  });

  it('the hand-off works once', async () => {
    const { browser } = await browserOf(admin);
    const started = await impersonate(browser, { tenant_id: tenantId, as: 'user', account_id: target.id, reason: 'once' });
    expect((await browser.follow(started.body.url)).url.origin).toBe(appOrigin);
    const again = await browser.request(started.body.url);
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe('/admin?impersonation_error=expired');
  });

  it('expires 60 s after it was made', async () => {
    const { browser } = await browserOf(admin);
    const started = await impersonate(browser, { tenant_id: tenantId, as: 'user', account_id: target.id, reason: 'late' });
    server.ctx.advance(61_000);
    const late = await browser.request(started.body.url);
    expect(late.headers.get('location')).toBe('/admin?impersonation_error=expired');
    // Nothing waits for the app: its sign-in is the operator's own.
    const authorization = await appAuthorization('openid');
    const tokens = await exchange(await followAll(browser, authorization.url.toString()), authorization);
    expect(tokens.claims()).toMatchObject({ sub: admin.id });
    expect(tokens.claims()!.act).toBeUndefined();
  });

  it('checks the access again when opened: access ended since the hand-off was made signs no one in as the person', async () => {
    const leaving = await person('lena-leaving');
    await server.ctx.db('tenant_access').insert({ account_id: leaving.id, tenant_id: tenantId, role: 'user', active: true });
    const { browser } = await browserOf(admin);
    const started = await impersonate(browser, { tenant_id: tenantId, as: 'user', account_id: leaving.id, reason: 'access about to end' });
    expect(started.status).toBe(201);
    await server.ctx.db('tenant_access').where({ account_id: leaving.id, tenant_id: tenantId }).update({ active: false });

    const opened = await browser.request(started.body.url);
    expect(opened.status).toBe(303);
    expect(opened.headers.get('location')).toBe('/admin?impersonation_error=access-inactive');
    expect(await auditRows(leaving.id, 'operator.impersonation.used')).toHaveLength(0);
    // Nothing waits for the app: its sign-in in that browser is the operator's own.
    const authorization = await appAuthorization('openid');
    const claims = (await exchange(await followAll(browser, authorization.url.toString()), authorization)).claims()!;
    expect(claims.sub).toBe(admin.id);
    expect(claims.act).toBeUndefined();
  });

  it('works only in the browser of the operator who asked for it', async () => {
    const { browser } = await browserOf(admin);
    const started = await impersonate(browser, { tenant_id: tenantId, as: 'user', account_id: target.id, reason: 'leak' });
    const otherAdmin = await person('olga-otheradmin', 'admin');
    const stranger = await browserOf(otherAdmin);
    const opened = await stranger.browser.request(started.body.url);
    expect(opened.headers.get('location')).toBe('/admin?impersonation_error=forbidden');
  });

  it('is not used up by anyone else opening it first (a link preview, another person): the operator can still use it, once', async () => {
    const { browser } = await browserOf(admin);
    const started = await impersonate(browser, { tenant_id: tenantId, as: 'user', account_id: target.id, reason: 'preview' });
    const refusals = [new BrowserLike(server.base), (await browserOf(nobody)).browser, (await browserOf(admin, ['pwd'])).browser];
    for (const other of refusals) {
      const opened = await other.request(started.body.url);
      expect(opened.headers.get('location')).toBe('/admin?impersonation_error=forbidden');
    }
    expect((await browser.follow(started.body.url)).url.toString()).toBe(`${appOrigin}/acme`);
    const again = await browser.request(started.body.url);
    expect(again.headers.get('location')).toBe('/admin?impersonation_error=expired');
  });

  it('works only in the console session that asked for it, not in another of the same operator’s, which does not use it up', async () => {
    const asking = await browserOf(admin);
    const elsewhere = await browserOf(admin);
    const started = await impersonate(asking.browser, { tenant_id: tenantId, as: 'user', account_id: target.id, reason: 'other session' });
    const opened = await elsewhere.browser.request(started.body.url);
    expect(opened.headers.get('location')).toBe('/admin?impersonation_error=forbidden');
    // Nothing waits for the tenant app in the session that was refused.
    const authorization = await appAuthorization('openid');
    const tokens = await exchange(await followAll(elsewhere.browser, authorization.url.toString()), authorization);
    expect(tokens.claims()).toMatchObject({ sub: admin.id });
    expect(tokens.claims()!.act).toBeUndefined();
    expect((await asking.browser.follow(started.body.url)).url.toString()).toBe(`${appOrigin}/acme`);
  });

  it('of two openings at once in the browser that asked, exactly one gets it', async () => {
    const { browser } = await browserOf(admin);
    const started = await impersonate(browser, { tenant_id: tenantId, as: 'user', account_id: target.id, reason: 'race' });
    const opened = await Promise.all([browser.request(started.body.url), browser.request(started.body.url)]);
    expect(opened.map((r) => r.headers.get('location')).sort()).toEqual(['/admin?impersonation_error=expired', `${appOrigin}/acme`]);
  });

  it("names the tenant in the person's own activity, without the operator", async () => {
    const helped = await person('ivar-impersonated');
    await server.ctx.db('tenant_access').insert({ account_id: helped.id, tenant_id: tenantId, role: 'user', active: true });
    const { browser } = await browserOf(admin);
    const started = await impersonate(browser, { tenant_id: tenantId, as: 'user', account_id: helped.id, reason: 'Ticket 77: missing candidates' });
    expect(started.status).toBe(201);

    const own = await browserOf(helped, ['pwd']);
    const res = await own.browser.request('/api/accounts/activity');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { events: { action: string; by: string; details: Record<string, unknown> }[] };
    expect(body.events.map((e) => [e.action, e.by, e.details])).toEqual([
      ['operator.impersonation.started', 'support', { tenant: 'Acme', reason: 'Ticket 77: missing candidates', as: 'user' }],
    ]);
    // Once the tenant app got the sign-in, that shows too, naming the tenant.
    await browser.follow(started.body.url);
    await followAll(browser, (await appAuthorization()).url.toString());
    const after = (await (await own.browser.request('/api/accounts/activity')).json()) as typeof body;
    expect(after.events.map((e) => [e.action, e.by, e.details])[0]).toEqual(['operator.impersonation.used', 'support', { tenant: 'Acme', client: 'tenant-app' }]);
    for (const secret of [admin.email, admin.id]) expect(JSON.stringify(after)).not.toContain(secret);
    for (const secret of [admin.email, admin.id]) expect(JSON.stringify(body)).not.toContain(secret);
  });

  it('is used only by the tenant app; another client in that browser signs in as the operator', async () => {
    const { browser } = await browserOf(admin);
    const started = await impersonate(browser, { tenant_id: tenantId, as: 'user', account_id: target.id, reason: 'scope' });
    await browser.follow(started.body.url);
    const elsewhere = await client.discovery(new URL(server.issuer), 'elsewhere', 'elsewhere-secret-0123456789', undefined, {
      execute: [client.allowInsecureRequests],
    });
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(elsewhere, {
      redirect_uri: 'http://127.0.0.1:10/callback',
      scope: 'openid',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 'elsewhere-state',
    });
    const callback = await followAll(browser, url.toString());
    const tokens = await client.authorizationCodeGrant(elsewhere, callback, { pkceCodeVerifier: verifier, expectedState: 'elsewhere-state' });
    expect(tokens.claims()).toMatchObject({ sub: admin.id });

    // The hand-off still waits for the tenant app.
    const authorization = await appAuthorization('openid');
    const appTokens = await exchange(await followAll(browser, authorization.url.toString()), authorization);
    expect(appTokens.claims()).toMatchObject({ sub: target.id, act: { sub: admin.id } });
    // The provider session of that browser changed person (oidc-provider ends the old one first):
    // that is no sign-out of the operator's console.
    expect((await browser.request('/api/operator')).status).toBe(200);
  });

  it("after the impersonation, the operator's next sign-in in that browser is their own again", async () => {
    const { browser } = await browserOf(admin);
    // The operator was signed in to the app as themselves: that sign-in is neither ended nor revoked.
    const own = await appAuthorization('openid');
    const ownTokens = await exchange(await followAll(browser, own.url.toString()), own);
    expect(ownTokens.claims()).toMatchObject({ sub: admin.id });

    const started = await impersonate(browser, { tenant_id: tenantId, as: 'user', account_id: target.id, reason: 'then back' });
    await browser.follow(started.body.url);
    const first = await appAuthorization('openid');
    expect((await exchange(await followAll(browser, first.url.toString()), first)).claims()).toMatchObject({ sub: target.id });

    const second = await appAuthorization('openid');
    const tokens = await exchange(await followAll(browser, second.url.toString()), second);
    expect(tokens.claims()).toMatchObject({ sub: admin.id });
    expect(tokens.claims()!.act).toBeUndefined();
    expect((await browser.request('/api/operator')).status).toBe(200);
    expect(await client.tokenIntrospection(rp, ownTokens.access_token)).toMatchObject({ active: true, sub: admin.id });
  });
});

describe('log in as tenant admin', () => {
  it("signs in as the tenant's active admin", async () => {
    const { browser } = await browserOf(admin);
    const started = await impersonate(browser, { tenant_id: tenantId, as: 'admin', reason: 'Set up SMS for the customer' });
    expect(started.status).toBe(201);
    expect(started.body.account_id).toBe(tenantAdmin.id);
    await browser.follow(started.body.url);
    const authorization = await appAuthorization('openid email tenants');
    const claims = (await exchange(await followAll(browser, authorization.url.toString()), authorization)).claims()!;
    expect(claims).toMatchObject({ sub: tenantAdmin.id, act: { sub: admin.id, email: admin.email } });
    expect(claims.tenants).toEqual([{ id: tenantId, slug: 'acme', name: 'Acme', role: 'admin' }]);
    const [event] = await auditRows(tenantAdmin.id);
    expect(event.details).toMatchObject({ as: 'admin', reason: 'Set up SMS for the customer' });
  });

  it('refuses a tenant without an active admin, and a named account that is not its admin', async () => {
    const { browser } = await browserOf(admin);
    const noAdmin = await impersonate(browser, { tenant_id: otherTenantId, as: 'admin', reason: 'x' });
    expect([noAdmin.status, noAdmin.body.detail?.[0]?.type]).toEqual([409, 'impersonation/no-tenant-admin']);
    const notAdmin = await impersonate(browser, { tenant_id: tenantId, as: 'admin', account_id: target.id, reason: 'x' });
    expect([notAdmin.status, notAdmin.body.detail?.[0]?.type]).toEqual([409, 'impersonation/not-tenant-admin']);
  });
});

describe('operators and their roles', () => {
  it('never logs in as an operator: named, or picked as the tenant admin', async () => {
    const { browser } = await browserOf(admin);
    const colleague = await person('oskar-operator', 'support');
    const gammaId = await createTenant(server.ctx.db, 'gamma', { name: 'Gamma' });
    await server.ctx.db('tenant_access').insert({ account_id: colleague.id, tenant_id: gammaId, role: 'admin', active: true });
    const named = await impersonate(browser, { tenant_id: gammaId, as: 'user', account_id: colleague.id, reason: 'x' });
    expect([named.status, named.body.detail?.[0]?.type]).toEqual([409, 'impersonation/operator']);
    // The tenant's only admin is that operator: there is no one to log in as.
    const picked = await impersonate(browser, { tenant_id: gammaId, as: 'admin', reason: 'x' });
    expect([picked.status, picked.body.detail?.[0]?.type]).toEqual([409, 'impersonation/no-tenant-admin']);
    expect(await auditRows(colleague.id)).toHaveLength(0);
  });

  it("ends with the operator's admin role: a hand-off not yet used is void, and issued tokens stop working", async () => {
    const revoked = await person('rut-revoked', 'admin');
    const { browser } = await browserOf(revoked);
    const first = await impersonate(browser, { tenant_id: tenantId, as: 'user', account_id: target.id, reason: 'before' });
    await browser.follow(first.body.url);
    const authorization = await appAuthorization('openid email');
    const tokens = await exchange(await followAll(browser, authorization.url.toString()), authorization);
    expect(tokens.claims()!.act).toEqual({ sub: revoked.id, email: revoked.email });
    expect(await client.tokenIntrospection(rp, tokens.access_token)).toMatchObject({ active: true, act: { sub: revoked.id } });

    const second = await impersonate(browser, { tenant_id: tenantId, as: 'user', account_id: target.id, reason: 'pending' });
    await browser.follow(second.body.url);
    await server.ctx.db('operator_roles').where({ account_id: revoked.id }).delete();

    await expect(client.fetchUserInfo(rp, tokens.access_token, target.id)).rejects.toMatchObject({ status: 401 });
    expect(await client.tokenIntrospection(rp, tokens.access_token)).toEqual({ active: false });
    // The hand-off opened before the revocation signs no one in as the person.
    const next = await appAuthorization('openid email');
    const own = (await exchange(await followAll(browser, next.url.toString()), next)).claims()!;
    expect(own.sub).toBe(revoked.id);
    expect(own.act).toBeUndefined();
  });
});
