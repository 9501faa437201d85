import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionsAnswer } from '../../src/profile/sessions.service.ts';
import { getPortalSessionById, raisePortalSession, type PortalSessionWithId } from '../../src/session/portal-session.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { afterNextRead } from '../helpers/store-hooks.ts';
import { call, getJson, person, registerClient, signedInBrowser, signInToApplication } from './helpers.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  await registerClient(server, 'rp-crm', 'Recruiting CRM');
  await registerClient(server, 'rp-share', 'Sharing portal');
});

afterAll(async () => {
  await server?.close();
});

const refresh = (app: Awaited<ReturnType<typeof signInToApplication>>) => client.refreshTokenGrant(app.config, app.tokens.refresh_token!);

describe('active sessions on /profile', () => {
  it('lists the Nyckel sessions (this one first) and the applications under the session that signed them in', async () => {
    const { email } = await person(server);
    const app = await signInToApplication(server, 'rp-crm', email);
    const here = await signedInBrowser(server, email);

    const { status, body } = await getJson<SessionsAnswer>(here, '/api/accounts/sessions');
    expect(status).toBe(200);
    expect(body.sessions).toHaveLength(2);
    expect(body.sessions.map((s) => s.current)).toEqual([true, false]);
    expect(body.sessions[1]!.methods).toEqual(['pwd']);
    // Session ids are hashes, never the cookie that opens the session.
    const cookie = decodeURIComponent(app.browser.cookies.get('nyckel_session')!);
    for (const session of body.sessions) expect(cookie).not.toContain(session.id);
    expect(body.applications).toEqual([
      expect.objectContaining({ client_id: 'rp-crm', client_name: 'Recruiting CRM', session_id: body.sessions[1]!.id, current: false }),
    ]);

    // The application's own browser sees it as its current session's.
    const there = await getJson<SessionsAnswer>(app.browser, '/api/accounts/sessions');
    expect(there.body.applications).toEqual([expect.objectContaining({ client_id: 'rp-crm', current: true, session_id: there.body.sessions[0]!.id })]);
  });

  it('signs another session out: its cookie stops working and its refresh token is refused', async () => {
    const { id, email } = await person(server);
    const app = await signInToApplication(server, 'rp-crm', email);
    const here = await signedInBrowser(server, email);
    const { body } = await getJson<SessionsAnswer>(here, '/api/accounts/sessions');
    const other = body.sessions.find((s) => !s.current)!;

    const res = await call(here, 'DELETE', `/api/accounts/sessions/${other.id}`);
    expect(res.status).toBe(204);
    expect((await getJson(app.browser, '/oauth2/userinfo')).status).toBe(401);
    await expect(refresh(app)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await getJson(here, '/oauth2/userinfo')).status).toBe(200);
    const after = await getJson<SessionsAnswer>(here, '/api/accounts/sessions');
    expect(after.body.sessions.map((s) => s.current)).toEqual([true]);
    expect(after.body.applications).toEqual([]);
    const audit = await server.ctx.db('audit_events').where({ target_account_id: id, action: 'session.revoked' });
    expect(audit.map((a) => a.details)).toEqual([{ session: other.id.slice(0, 12), current: false, grants: 1 }]);
  });

  it('signs out the session the listed one was renewed to, when the renewal lands between the list and the sign-out', async () => {
    const { id, email } = await person(server);
    const app = await signInToApplication(server, 'rp-crm', email);
    const here = await signedInBrowser(server, email);
    const { body } = await getJson<SessionsAnswer>(here, '/api/accounts/sessions');
    const other = body.sessions.find((s) => !s.current)!;
    const appSession = /^s%3A([^.]+)\./.exec(app.browser.cookies.get('nyckel_session')!)![1]!;

    // The other browser turns on an authenticator app just after this revoke read its session.
    let raised: PortalSessionWithId | null = null;
    afterNextRead(server.ctx.store, 'get', `session:${appSession}`, async () => {
      raised = await raisePortalSession(server.ctx, (await getPortalSessionById(server.ctx, appSession))!, ['otp', 'mfa']);
    });
    expect((await call(here, 'DELETE', `/api/accounts/sessions/${other.id}`)).status).toBe(204);

    expect(raised).not.toBeNull();
    expect(await getPortalSessionById(server.ctx, raised!.id)).toBeNull();
    await expect(refresh(app)).rejects.toMatchObject({ error: 'invalid_grant' });
    const audit = await server.ctx.db('audit_events').where({ target_account_id: id, action: 'session.revoked' });
    expect(audit.map((a) => a.details)).toEqual([{ session: other.id.slice(0, 12), current: false, grants: 1 }]);
  });

  it('signs out everywhere else but keeps this browser and its applications', async () => {
    const { id, email } = await person(server);
    const away = await signInToApplication(server, 'rp-crm', email);
    const alsoAway = await signedInBrowser(server, email);
    const here = await signInToApplication(server, 'rp-share', email);

    const res = await call<{ sessions: number; applications: number }>(here.browser, 'POST', '/api/accounts/sessions/sign-out-others', {});
    expect(res).toEqual({ status: 200, body: { sessions: 2, applications: 1 } });
    expect((await getJson(away.browser, '/oauth2/userinfo')).status).toBe(401);
    expect((await getJson(alsoAway, '/oauth2/userinfo')).status).toBe(401);
    await expect(refresh(away)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(refresh(here)).resolves.toMatchObject({ token_type: 'bearer' });
    const after = await getJson<SessionsAnswer>(here.browser, '/api/accounts/sessions');
    expect(after.body.sessions).toHaveLength(1);
    expect(after.body.applications.map((a) => a.client_id)).toEqual(['rp-share']);
    expect(await server.ctx.db('audit_events').where({ target_account_id: id, action: 'sessions.revoked_others' }).pluck('details')).toEqual([
      { sessions: 2, applications: 1 },
    ]);
  });

  it('signs one application out by its grant', async () => {
    const { email } = await person(server);
    const crm = await signInToApplication(server, 'rp-crm', email);
    const share = await signInToApplication(server, 'rp-share', email, crm.browser);
    const { body } = await getJson<SessionsAnswer>(crm.browser, '/api/accounts/sessions');
    expect(body.applications.map((a) => a.client_id).sort()).toEqual(['rp-crm', 'rp-share']);
    const target = body.applications.find((a) => a.client_id === 'rp-crm')!;

    expect((await call(crm.browser, 'DELETE', `/api/accounts/applications/${target.id}`)).status).toBe(204);
    await expect(refresh(crm)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(refresh(share)).resolves.toMatchObject({ token_type: 'bearer' });
  });

  it('answers 404 for another person’s session or application, and for unknown or malformed ids', async () => {
    const mine = await person(server);
    const theirs = await person(server);
    const theirApp = await signInToApplication(server, 'rp-crm', theirs.email);
    const theirView = await getJson<SessionsAnswer>(theirApp.browser, '/api/accounts/sessions');
    const here = await signedInBrowser(server, mine.email);

    for (const path of [
      `/api/accounts/sessions/${theirView.body.sessions[0]!.id}`,
      `/api/accounts/sessions/${'A'.repeat(43)}`,
      '/api/accounts/sessions/not-an-id',
      `/api/accounts/applications/${theirView.body.applications[0]!.id}`,
      '/api/accounts/applications/unknown-grant',
      `/api/accounts/applications/${encodeURIComponent('../x')}`,
    ]) {
      const res = await call(here, 'DELETE', path);
      expect([path, res.status, res.body]).toEqual([path, 404, { detail: [{ type: 'not_found', msg: 'Not found' }] }]);
    }
    await expect(refresh(theirApp)).resolves.toMatchObject({ token_type: 'bearer' });
    expect((await getJson(theirApp.browser, '/oauth2/userinfo')).status).toBe(200);
  });

  it('signs this browser out: its session, its applications and its cookies; other browsers stay signed in', async () => {
    const { id, email } = await person(server);
    const app = await signInToApplication(server, 'rp-crm', email);
    const elsewhere = await signedInBrowser(server, email);

    for (const cookie of ['nyckel_session', 'nyckel_op_session']) expect(app.browser.cookies.get(cookie), cookie).toBeTruthy();
    const res = await call(app.browser, 'POST', '/api/accounts/sessions/sign-out', {});
    expect([res.status, res.body]).toEqual([200, { status: 'signed_out' }]);
    for (const cookie of ['nyckel_session', 'nyckel_op_session']) expect(app.browser.cookies.get(cookie) ?? '', cookie).toBe('');
    expect((await getJson(app.browser, '/oauth2/userinfo')).status).toBe(401);
    await expect(refresh(app)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await getJson(elsewhere, '/oauth2/userinfo')).status).toBe(200);
    const audit = await server.ctx.db('audit_events').where({ target_account_id: id, action: 'session.revoked' });
    expect(audit.map((a) => a.details)).toEqual([expect.objectContaining({ current: true, grants: 1 })]);

    // Once more, now without a session: the same answer, nothing else recorded.
    expect((await call(app.browser, 'POST', '/api/accounts/sessions/sign-out', {})).body).toEqual({ status: 'signed_out' });
    expect(await server.ctx.db('audit_events').where({ target_account_id: id, action: 'session.revoked' })).toHaveLength(1);
    expect((await call(elsewhere, 'POST', '/api/accounts/sessions/sign-out', {}, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await getJson(elsewhere, '/oauth2/userinfo')).status).toBe(200);
  });

  it('refuses cross-site requests and non-JSON bodies', async () => {
    const { email } = await person(server);
    const away = await signedInBrowser(server, email);
    const here = await signedInBrowser(server, email);
    const { body } = await getJson<SessionsAnswer>(here, '/api/accounts/sessions');
    const other = body.sessions.find((s) => !s.current)!;

    const evil = { origin: 'https://evil.example' };
    expect((await call(here, 'DELETE', `/api/accounts/sessions/${other.id}`, undefined, evil)).body).toEqual({
      detail: [{ type: 'cross_site_request', msg: 'Cross-site request refused' }],
    });
    expect((await call(here, 'POST', '/api/accounts/sessions/sign-out-others', {}, evil)).status).toBe(403);
    const form = await call(here, 'POST', '/api/accounts/sessions/sign-out-others', 'a=b', { 'content-type': 'application/x-www-form-urlencoded' });
    expect([form.status, form.body]).toEqual([415, { detail: [{ type: 'unsupported_media_type', msg: 'Send the request as application/json' }] }]);
    expect((await getJson(away, '/oauth2/userinfo')).status).toBe(200);
  });

  it('answers 401 without a session', async () => {
    const { BrowserLike } = await import('../helpers/browser-like.ts');
    const nobody = new BrowserLike(server.base);
    expect((await getJson(nobody, '/api/accounts/sessions')).status).toBe(401);
    expect((await call(nobody, 'POST', '/api/accounts/sessions/sign-out-others', {})).status).toBe(401);
  });
});
