import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { totpCodeAt } from '../../src/credentials/totp/totp.ts';
import { listRememberedDevices, rememberDevice } from '../../src/login/remembered-device.ts';
import type { ActivityEntry } from '../../src/profile/activity-summary.ts';
import { listPortalSessions } from '../../src/session/portal-session.ts';
import { BrowserLike } from '../helpers/browser-like.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { call, getJson, person, registerClient, signedInBrowser, signInToApplication } from '../profile/helpers.ts';
import { createTotpAccount, password as totpPassword } from '../totp/helpers.ts';
import { browserOf, createPerson, errorType, type Person } from './harness.ts';

/**
 * "Sign out everywhere" from the console, for a person whose device was stolen. Driven on a real
 * port, as in test/profile/sessions.test.ts: the person signs in through the login API in two
 * browsers, one of them into an application whose refresh token openid-client then tries.
 */
let server: TestServer;
let supportOperator: Person;
let support: BrowserLike;
let adminOperator: Person;
let admin: BrowserLike;

beforeAll(async () => {
  server = await startTestServer();
  await registerClient(server, 'rp-crm', 'Recruiting CRM');
  supportOperator = await createPerson(server, 'sara-support', 'support');
  support = (await browserOf(server, supportOperator)).browser;
  adminOperator = await createPerson(server, 'ada-admin', 'admin');
  admin = (await browserOf(server, adminOperator)).browser;
});

afterAll(async () => {
  await server?.close();
});

const url = (accountId: string) => `/api/accounts/${accountId}/sign-out-everywhere`;
const signOut = (operator: BrowserLike, accountId: string, headers: Record<string, string> = {}) => call(operator, 'POST', url(accountId), undefined, headers);
const refresh = (app: Awaited<ReturnType<typeof signInToApplication>>) => client.refreshTokenGrant(app.config, app.tokens.refresh_token!);
/** What the portal session cookie of a browser opens: 200 while signed in, 401 once signed out. */
const userinfo = async (browser: BrowserLike) => (await getJson(browser, '/oauth2/userinfo')).status;
const signOuts = (accountId: string) =>
  server.ctx.db('audit_events').where({ action: 'operator.account.signed_out', target_account_id: accountId }).select('actor_id', 'details');

describe('signing an account out everywhere from the console', () => {
  it('ends every session, application and remembered device of the person, audited with the count; the password still signs in', async () => {
    const { id, email } = await person(server, 'stolen');
    const laptop = await signInToApplication(server, 'rp-crm', email);
    const phone = await signedInBrowser(server, email);
    await rememberDevice(server.ctx, id, 'Firefox', undefined);
    const bystander = await signedInBrowser(server, (await person(server, 'bystander')).email);
    expect([await userinfo(laptop.browser), await userinfo(phone)]).toEqual([200, 200]);

    const res = await signOut(support, id);
    expect(res).toEqual({ status: 200, body: { status: 'signed_out', applications: 1 } });

    expect([await userinfo(laptop.browser), await userinfo(phone)]).toEqual([401, 401]);
    await expect(refresh(laptop)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(await listPortalSessions(server.ctx, id)).toEqual([]);
    expect(await listRememberedDevices(server.ctx, id, undefined)).toEqual([]);
    expect(await signOuts(id)).toEqual([{ actor_id: supportOperator.id, details: { role: 'support', applications: 1 } }]);
    // Only that person: someone else, and the operator, stay signed in.
    expect(await userinfo(bystander)).toBe(200);
    expect((await getJson(support, '/api/operator')).status).toBe(200);

    // The password is unchanged, and the person's activity says who signed them out.
    const again = await signedInBrowser(server, email);
    const activity = await getJson<{ events: ActivityEntry[] }>(again, '/api/accounts/activity');
    expect(activity.body.events.find((event) => event.action === 'operator.account.signed_out')).toMatchObject({ by: 'support', details: {} });
  });

  it('ends sign-ins in progress: one past its password does not finish its second factor', async () => {
    const account = await createTotpAccount(server.ctx);
    const thief = new BrowserLike(server.base);
    const started = await thief.json<{ session_id: string }>('/auth/login/start', { email: account.email });
    const afterPassword = await thief.json<{ state: string }>('/auth/login/verify-password', { session_id: started.body.session_id, email: account.email, password: totpPassword });
    expect(afterPassword.body.state).toBe('MfaRequired');

    expect(await signOut(support, account.id)).toEqual({ status: 200, body: { status: 'signed_out', applications: 0 } });
    const refused = await thief.json('/auth/login/verify-mfa', { session_id: started.body.session_id, totp_code: await totpCodeAt(account.secrets[0]!, server.ctx.now()) });
    expect([refused.status, errorType(refused)]).toEqual([401, 'login_session_missing']);
    expect(await listPortalSessions(server.ctx, account.id)).toEqual([]);
  });

  it('an account signed in nowhere answers the same, with no applications, and each call is audited', async () => {
    const { id } = await person(server, 'nowhere');
    expect(await signOut(support, id)).toEqual({ status: 200, body: { status: 'signed_out', applications: 0 } });
    expect(await signOut(support, id)).toEqual({ status: 200, body: { status: 'signed_out', applications: 0 } });
    expect(await signOuts(id)).toHaveLength(2);
  });

  it('404 for an unknown account, 422 for a malformed id', async () => {
    const unknown = await signOut(support, '0b0e8f8e-8d8a-4c4b-9d6e-111111111111');
    expect(unknown).toEqual({ status: 404, body: { detail: [{ type: 'not_found', msg: 'Not found' }] } });
    const malformed = await signOut(support, 'not-a-uuid');
    expect([malformed.status, errorType(malformed)]).toEqual([422, 'validation_error']);
  });

  it('is refused to anyone but a signed-in operator with a second factor, from our own origin; the person stays signed in', async () => {
    const { id, email } = await person(server, 'kept');
    const app = await signInToApplication(server, 'rp-crm', email);

    const anonymous = await signOut(new BrowserLike(server.base), id);
    expect([anonymous.status, errorType(anonymous)]).toEqual([401, 'unauthorized']);
    const notOperator = await signOut(await signedInBrowser(server, (await person(server, 'someone')).email), id);
    expect([notOperator.status, errorType(notOperator)]).toEqual([403, 'forbidden']);
    const passwordOnly = await signOut((await browserOf(server, supportOperator, ['pwd'])).browser, id);
    expect([passwordOnly.status, errorType(passwordOnly)]).toEqual([403, 'operator/mfa-required']);
    const crossSite = await signOut(support, id, { origin: 'https://evil.example' });
    expect([crossSite.status, errorType(crossSite)]).toEqual([403, 'cross_site_request']);

    expect(await userinfo(app.browser)).toBe(200);
    await expect(refresh(app)).resolves.toMatchObject({ token_type: 'bearer' });
    expect(await signOuts(id)).toHaveLength(0);
  });

  it.each(['support', 'admin'] as const)('of an account with the %s role is refused to support (403): its console session and remembered device stay; an admin signs it out', async (role) => {
    const target = await createPerson(server, `otto-${role}`, role);
    const targetConsole = (await browserOf(server, target)).browser;
    const consoleOpen = async () => (await getJson(targetConsole, '/api/operator')).status;
    await rememberDevice(server.ctx, target.id, 'Firefox', undefined);
    expect(await consoleOpen()).toBe(200);

    const refused = await signOut(support, target.id);
    expect(refused).toEqual({ status: 403, body: { detail: [{ type: 'forbidden', msg: 'Not allowed' }] } });
    expect(await consoleOpen()).toBe(200);
    expect(await listRememberedDevices(server.ctx, target.id, undefined)).toHaveLength(1);
    expect(await signOuts(target.id)).toHaveLength(0);

    expect(await signOut(admin, target.id)).toEqual({ status: 200, body: { status: 'signed_out', applications: 0 } });
    expect(await consoleOpen()).toBe(401);
    expect(await listRememberedDevices(server.ctx, target.id, undefined)).toEqual([]);
    expect(await signOuts(target.id)).toEqual([{ actor_id: adminOperator.id, details: { role: 'admin', applications: 0 } }]);
  });

  it('a sign-out whose audit row cannot be written is logged as an error and answered 500; calling again writes the row', async () => {
    const { id, email } = await person(server, 'unrecorded');
    const phone = await signedInBrowser(server, email);
    // The database refuses just this row, as a failing insert would.
    await server.ctx.db.raw("create function refuse_sign_out_audit() returns trigger language plpgsql as $$ begin raise exception 'audit refused'; end $$");
    await server.ctx.db.raw(
      "create trigger refuse_sign_out_audit before insert on audit_events for each row when (new.action = 'operator.account.signed_out') execute function refuse_sign_out_audit()",
    );
    const logged = vi.spyOn(server.ctx.logger, 'error');
    try {
      const failed = await signOut(support, id);
      expect([failed.status, errorType(failed)]).toEqual([500, 'internal_error']);
      // The log holds what the table missed.
      expect(logged).toHaveBeenCalledWith(
        expect.objectContaining({ operator_id: supportOperator.id, role: 'support', target_account_id: id, applications: 0 }),
        expect.stringContaining('audit row was not written'),
      );
    } finally {
      logged.mockRestore();
      await server.ctx.db.raw('drop trigger refuse_sign_out_audit on audit_events');
      await server.ctx.db.raw('drop function refuse_sign_out_audit()');
    }
    // The sign-out itself stood.
    expect(await userinfo(phone)).toBe(401);
    expect(await signOuts(id)).toHaveLength(0);

    expect(await signOut(support, id)).toEqual({ status: 200, body: { status: 'signed_out', applications: 0 } });
    expect(await signOuts(id)).toEqual([{ actor_id: supportOperator.id, details: { role: 'support', applications: 0 } }]);
  });
});

describe('deleting a credential in the console signs the account out everywhere', () => {
  const deleteCredential = (accountId: string, credentialId: string) => call(admin, 'DELETE', `/api/accounts/${accountId}/credentials/${credentialId}`);

  it('the lost phone’s passkey: every session and application of the person ends, audited once', async () => {
    const { id, email } = await person(server, 'lost-phone');
    const laptop = await signInToApplication(server, 'rp-crm', email);
    const phone = await signedInBrowser(server, email);
    const [row] = await server.ctx.db('credentials').insert({ account_id: id, type: 'webauthn', data: { name: 'Lost phone' } }).returning('id');
    expect([await userinfo(laptop.browser), await userinfo(phone)]).toEqual([200, 200]);

    expect((await deleteCredential(id, (row as { id: string }).id)).status).toBe(204);

    expect([await userinfo(laptop.browser), await userinfo(phone)]).toEqual([401, 401]);
    await expect(refresh(laptop)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(await listPortalSessions(server.ctx, id)).toEqual([]);
    const rows = await server.ctx.db('audit_events').where({ target_account_id: id, action: 'operator.credential.deleted' });
    expect(rows).toHaveLength(1);
    // What is left still signs in.
    expect(await userinfo(await signedInBrowser(server, email))).toBe(200);
  });

  it('a colleague’s stolen passkey: their console session closes', async () => {
    const colleague = await createPerson(server, 'cole-admin', 'admin');
    const stolen = (await browserOf(server, colleague, ['hwk', 'mfa'])).browser;
    await server.ctx.db('credentials').insert({ account_id: colleague.id, type: 'totp', secret: server.ctx.secretBox.seal('JBSWY3DPEHPK3PXP') });
    const [row] = await server.ctx.db('credentials').insert({ account_id: colleague.id, type: 'webauthn', data: { name: 'Stolen' } }).returning('id');
    expect((await getJson(stolen, '/api/operator')).status).toBe(200);

    expect((await deleteCredential(colleague.id, (row as { id: string }).id)).status).toBe(204);
    expect((await getJson(stolen, '/api/operator')).status).toBe(401);
    // The deleting admin is someone else, and stays in.
    expect((await getJson(admin, '/api/operator')).status).toBe(200);
  });
});
