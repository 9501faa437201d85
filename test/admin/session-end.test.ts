import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ActivityEntry } from '../../src/profile/activity-summary.ts';
import { createPortalSession, destroyPortalSession, listPortalSessions } from '../../src/session/portal-session.ts';
import { BrowserLike } from '../helpers/browser-like.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { call, getJson, person, registerClient, signedInBrowser, signInToApplication } from '../profile/helpers.ts';
import { browserOf, createPerson, errorType, type Person } from './harness.ts';

/**
 * "End session" on the console's tokens view, for "I left myself signed in on the library
 * computer": the operator finds that browser's row by its address and browser, and ends it as the
 * person's own "Sign out" of that session would. Driven on a real port, as
 * account-sign-out.test.ts is: the person signs in to an application in two browsers, and
 * openid-client tries each one's refresh token afterwards.
 */
let server: TestServer;
let supportOperator: Person;
let support: BrowserLike;
let adminOperator: Person;
let admin: BrowserLike;

/** A browser that names itself in every request, so the tokens view tells its sessions apart. */
class NamedBrowser extends BrowserLike {
  readonly userAgent: string;
  constructor(base: string, userAgent: string) {
    super(base);
    this.userAgent = userAgent;
  }
  override request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set('user-agent', this.userAgent);
    return super.request(path, { ...init, headers });
  }
}

const library = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) LibraryKiosk/1.0';
const home = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';

beforeAll(async () => {
  server = await startTestServer();
  await registerClient(server, 'rp-library', 'Library loans');
  supportOperator = await createPerson(server, 'sam-support', 'support');
  support = (await browserOf(server, supportOperator)).browser;
  adminOperator = await createPerson(server, 'alma-admin', 'admin');
  admin = (await browserOf(server, adminOperator)).browser;
});

afterAll(async () => {
  await server?.close();
});

interface Entry {
  key: string;
  model: string;
  user_agent: string | null;
}

type App = Awaited<ReturnType<typeof signInToApplication>>;

const entries = async (operator: BrowserLike, accountId: string) => {
  const res = await getJson<Entry[]>(operator, `/api/tokens/${accountId}`);
  expect(res.status).toBe(200);
  return res.body;
};
/** The key of the account's one row of this kind from this browser, as the operator picks it. */
const rowOf = async (accountId: string, model: 'Session' | 'PortalSession', userAgent: string | null) => {
  const rows = (await entries(admin, accountId)).filter((entry) => entry.model === model && entry.user_agent === userAgent);
  expect(rows).toHaveLength(1);
  return rows[0]!.key;
};
const url = (accountId: string, key: string) => `/api/tokens/${accountId}/sessions/${encodeURIComponent(key)}`;
const endSession = (operator: BrowserLike, accountId: string, key: string, headers: Record<string, string> = {}) =>
  call(operator, 'DELETE', url(accountId, key), undefined, headers);
const refresh = (app: App) => client.refreshTokenGrant(app.config, app.tokens.refresh_token!);
/** What a browser's portal session cookie opens: 200 while signed in, 401 once signed out. */
const userinfo = async (browser: BrowserLike) => (await getJson(browser, '/oauth2/userinfo')).status;
const ended = (accountId: string) =>
  server.ctx.db('audit_events').where({ action: 'operator.account.session_ended', target_account_id: accountId }).orderBy('id').select('actor_id', 'details');

/** The person signed in to the library's application on the library computer and at home. */
async function twoBrowsers(prefix: string): Promise<{ id: string; email: string; kiosk: App; laptop: App }> {
  const { id, email } = await person(server, prefix);
  const kiosk = await signInToApplication(server, 'rp-library', email, new NamedBrowser(server.base, library));
  const laptop = await signInToApplication(server, 'rp-library', email, new NamedBrowser(server.base, home));
  expect([await userinfo(kiosk.browser), await userinfo(laptop.browser)]).toEqual([200, 200]);
  return { id, email, kiosk, laptop };
}

describe('ending one session of an account from the tokens view', () => {
  it("the library computer's Nyckel session: that browser and its application are signed out, the one at home is not; audited", async () => {
    const { id, email, kiosk, laptop } = await twoBrowsers('library');
    const key = await rowOf(id, 'PortalSession', library);

    expect(await endSession(support, id, key)).toEqual({ status: 200, body: { status: 'signed_out', applications: 1 } });

    expect(await userinfo(kiosk.browser)).toBe(401);
    await expect(refresh(kiosk)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(await userinfo(laptop.browser)).toBe(200);
    await expect(refresh(laptop)).resolves.toMatchObject({ token_type: 'bearer' });
    // Gone from the view with its OP session; the laptop's are still there.
    const left = await entries(support, id);
    expect(left.filter((entry) => entry.user_agent === library)).toEqual([]);
    expect(left.filter((entry) => entry.user_agent === home).map((entry) => entry.model).sort()).toEqual(['PortalSession', 'Session']);

    expect(await ended(id)).toEqual([
      { actor_id: supportOperator.id, details: { role: 'support', kind: 'PortalSession', key, nyckel_session: true, applications: 1 } },
    ]);
    // The person sees it in their activity, as support's doing.
    const activity = await getJson<{ events: ActivityEntry[] }>(laptop.browser, '/api/accounts/activity');
    expect(activity.body.events.find((event) => event.action === 'operator.account.session_ended')).toMatchObject({ by: 'support' });
    // The password still signs in on the library computer.
    expect(await userinfo(await signedInBrowser(server, email))).toBe(200);
  });

  it("the library computer's OP session: ends the browser it came from, Nyckel session included, as its row shows it", async () => {
    const { id, kiosk, laptop } = await twoBrowsers('op-row');
    const key = await rowOf(id, 'Session', library);

    expect(await endSession(admin, id, key)).toEqual({ status: 200, body: { status: 'signed_out', applications: 1 } });

    expect(await userinfo(kiosk.browser)).toBe(401);
    await expect(refresh(kiosk)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(await userinfo(laptop.browser)).toBe(200);
    await expect(refresh(laptop)).resolves.toMatchObject({ token_type: 'bearer' });
    expect((await entries(admin, id)).filter((entry) => entry.model.endsWith('Session')).map((entry) => entry.user_agent)).toEqual([home, home]);
    expect(await ended(id)).toEqual([
      { actor_id: adminOperator.id, details: { role: 'admin', kind: 'Session', key, nyckel_session: true, applications: 1 } },
    ]);
  });

  it('an OP session whose Nyckel session has ended is ended on its own, with its application', async () => {
    const { id, kiosk, laptop } = await twoBrowsers('orphan');
    // The kiosk's Nyckel session timed out; its OP session and refresh token live on.
    const kioskPortal = (await listPortalSessions(server.ctx, id)).find((session) => session.user_agent === library)!;
    await destroyPortalSession(server.ctx, kioskPortal.id);
    const orphan = (await entries(admin, id)).filter((entry) => entry.model === 'Session' && entry.user_agent === null);
    expect(orphan).toHaveLength(1);
    await expect(refresh(kiosk)).resolves.toMatchObject({ token_type: 'bearer' });

    expect(await endSession(admin, id, orphan[0]!.key)).toEqual({ status: 200, body: { status: 'signed_out', applications: 1 } });

    await expect(refresh(kiosk)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(await userinfo(laptop.browser)).toBe(200);
    await expect(refresh(laptop)).resolves.toMatchObject({ token_type: 'bearer' });
    expect(await ended(id)).toEqual([
      { actor_id: adminOperator.id, details: { role: 'admin', kind: 'Session', key: orphan[0]!.key, nyckel_session: false, applications: 1 } },
    ]);
  });

  it("404 for an unknown account, a session already ended, or another account's session; 422 for what is not a session's key", async () => {
    const { id, kiosk } = await twoBrowsers('probed');
    const other = await twoBrowsers('other');
    const otherKey = await rowOf(other.id, 'PortalSession', library);
    const notFound = { status: 404, body: { detail: [{ type: 'not_found', msg: 'Not found' }] } };

    expect(await endSession(support, '0b0e8f8e-8d8a-4c4b-9d6e-111111111111', otherKey)).toEqual(notFound);
    expect(await endSession(support, id, otherKey)).toEqual(notFound);
    expect(await endSession(support, id, 'PortalSession:000000000000')).toEqual(notFound);
    // The other account's session is untouched; so is this one's.
    expect([await userinfo(other.kiosk.browser), await userinfo(kiosk.browser)]).toEqual([200, 200]);

    const key = await rowOf(id, 'PortalSession', library);
    expect((await endSession(support, id, key)).status).toBe(200);
    expect(await endSession(support, id, key)).toEqual(notFound);

    const grant = (await entries(support, id)).find((entry) => entry.model === 'Grant')!;
    for (const bad of [grant.key, 'PortalSession:xyz', 'PortalSession', 'session:abc', 'PortalSession:0123456789abc']) {
      const res = await endSession(support, id, bad);
      expect([bad, res.status, errorType(res)]).toEqual([bad, 422, 'validation_error']);
    }
    const malformed = await endSession(support, 'not-a-uuid', key);
    expect([malformed.status, errorType(malformed)]).toEqual([422, 'validation_error']);
    expect(await ended(id)).toHaveLength(1);
    expect(await ended(other.id)).toHaveLength(0);
  });

  it('is refused to anyone but a signed-in operator with a second factor, from our own origin; the session stays', async () => {
    const { id, kiosk } = await twoBrowsers('kept');
    const key = await rowOf(id, 'PortalSession', library);

    const anonymous = await endSession(new BrowserLike(server.base), id, key);
    expect([anonymous.status, errorType(anonymous)]).toEqual([401, 'unauthorized']);
    const notOperator = await endSession(await signedInBrowser(server, (await person(server, 'someone')).email), id, key);
    expect([notOperator.status, errorType(notOperator)]).toEqual([403, 'forbidden']);
    const passwordOnly = await endSession((await browserOf(server, supportOperator, ['pwd'])).browser, id, key);
    expect([passwordOnly.status, errorType(passwordOnly)]).toEqual([403, 'operator/mfa-required']);
    const crossSite = await endSession(support, id, key, { origin: 'https://evil.example' });
    expect([crossSite.status, errorType(crossSite)]).toEqual([403, 'cross_site_request']);

    expect(await userinfo(kiosk.browser)).toBe(200);
    await expect(refresh(kiosk)).resolves.toMatchObject({ token_type: 'bearer' });
    expect(await ended(id)).toHaveLength(0);
  });

  it.each(['support', 'admin'] as const)("of an account with the %s role is refused to support (403): the colleague's console stays open; an admin ends it", async (role) => {
    const colleague = await createPerson(server, `cleo-${role}`, role);
    const console = (await browserOf(server, colleague)).browser;
    const consoleOpen = async () => (await getJson(console, '/api/operator')).status;
    const key = (await entries(admin, colleague.id)).find((entry) => entry.model === 'PortalSession')!.key;

    expect(await endSession(support, colleague.id, key)).toEqual({ status: 403, body: { detail: [{ type: 'forbidden', msg: 'Not allowed' }] } });
    expect(await consoleOpen()).toBe(200);
    expect(await ended(colleague.id)).toHaveLength(0);

    expect(await endSession(admin, colleague.id, key)).toEqual({ status: 200, body: { status: 'signed_out', applications: 0 } });
    expect(await consoleOpen()).toBe(401);
    expect(await ended(colleague.id)).toHaveLength(1);
  });

  it('five per account and hour, whoever ends them; the sixth is refused with 429, ends nothing and records nothing', async () => {
    const { id, email } = await person(server, 'many');
    const signIn = () =>
      createPortalSession(server.ctx, { account_id: id, email, amr: ['pwd'], auth_time: Math.floor(server.ctx.now().getTime() / 1000), ip: null, user_agent: null });
    for (let i = 0; i < 6; i += 1) await signIn();
    const keys = (await entries(admin, id)).filter((entry) => entry.model === 'PortalSession').map((entry) => entry.key);
    expect(keys).toHaveLength(6);
    const sara = (await browserOf(server, await createPerson(server, 'sara-support', 'support'))).browser;

    for (const [i, key] of keys.slice(0, 5).entries()) expect((await endSession(i % 2 ? sara : support, id, key)).status).toBe(200);
    // A key that is none of the account's costs nothing, before and after.
    expect((await endSession(sara, id, 'PortalSession:000000000000')).status).toBe(404);

    const refused = await sara.request(url(id, keys[5]!), { method: 'DELETE', headers: { origin: server.base } });
    expect([refused.status, errorType({ body: await refused.json() })]).toEqual([429, 'too_many_requests']);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await listPortalSessions(server.ctx, id)).toHaveLength(1);
    expect(await ended(id)).toHaveLength(5);
    // Signing the account out everywhere has a budget of its own.
    expect((await call(sara, 'POST', `/api/accounts/${id}/sign-out-everywhere`)).status).toBe(200);
  });

  it('an ending whose audit row cannot be written is logged as an error with what it ended and answered 500; the session stays ended', async () => {
    const { id, kiosk, laptop } = await twoBrowsers('unrecorded');
    const key = await rowOf(id, 'PortalSession', library);
    // The database refuses just this row, as a failing insert would.
    await server.ctx.db.raw("create function refuse_session_end_audit() returns trigger language plpgsql as $$ begin raise exception 'audit refused'; end $$");
    await server.ctx.db.raw(
      "create trigger refuse_session_end_audit before insert on audit_events for each row when (new.action = 'operator.account.session_ended') execute function refuse_session_end_audit()",
    );
    const logged = vi.spyOn(server.ctx.logger, 'error');
    try {
      const failed = await endSession(support, id, key);
      expect([failed.status, errorType(failed)]).toEqual([500, 'internal_error']);
      // The log holds what the table missed.
      expect(logged).toHaveBeenCalledWith(
        expect.objectContaining({ operator_id: supportOperator.id, role: 'support', target_account_id: id, kind: 'PortalSession', applications: 1 }),
        'operator.account.session_ended: the session ended, but the audit row was not written',
      );
    } finally {
      logged.mockRestore();
      await server.ctx.db.raw('drop trigger refuse_session_end_audit on audit_events');
      await server.ctx.db.raw('drop function refuse_session_end_audit()');
    }
    expect(await userinfo(kiosk.browser)).toBe(401);
    await expect(refresh(kiosk)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(await userinfo(laptop.browser)).toBe(200);
    expect(await ended(id)).toEqual([]);
  });
});
