import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount } from './fixtures.ts';
import { cookieShape, errorType, setCookies, start, type Browser } from './journey.ts';

/**
 * Sign-ins in several tabs of one browser: the login cookie holds the browser's id, and each
 * sign-in is bound to it, so a start in one tab does not end another tab's sign-in for another
 * application (the recruiting app and the sharing portal opened side by side).
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const PASSWORD = 'Correct-Horse-9';

const verify = (browser: Browser, sessionId: string, email: string) =>
  browser.post('/auth/login/verify-password').send({ session_id: sessionId, email, password: PASSWORD });

describe('sign-ins in several tabs of one browser', () => {
  it("a start in a second tab leaves the first tab's going; Done in one ends the other's", async () => {
    const account = await createAccount(t.ctx.db, { password: PASSWORD });
    const browser = t.agent();
    const first = await start(browser, account.email, '?interaction=first-tab');
    const second = await start(browser, account.email, '?interaction=second-tab');
    expect([first.body.state, second.body.state]).toEqual(['CredentialsRequired', 'CredentialsRequired']);
    // One browser, one id: the second start set the same cookie value again.
    expect(setCookies(second).get('nyckel_login')).toBe(setCookies(first).get('nyckel_login'));

    const done = await verify(browser, first.body.session_id, account.email);
    expect(done.body.state).toBe('Done');
    expect(cookieShape(setCookies(done).get('nyckel_login'))).toBe('nyckel_login=<value>; Path=/auth; Expires=<date>; HttpOnly; SameSite=Lax');

    // Done cleared the login cookie: the other tab's sign-in (proven or not) cannot finish after it.
    expect(errorType(await verify(browser, second.body.session_id, account.email))).toBe('login_session_missing');
  });

  it('a new start for the same request ends the earlier one; other requests keep theirs', async () => {
    const account = await createAccount(t.ctx.db, { password: PASSWORD });
    const browser = t.agent();
    const portal = await start(browser, account.email);
    const app = await start(browser, account.email, '?interaction=app-tab');
    const restarted = await start(browser, account.email);

    expect(errorType(await verify(browser, portal.body.session_id, account.email))).toBe('login_session_missing');
    expect((await browser.get(`/auth/login/ping?session_id=${app.body.session_id}`)).body.session).toMatchObject({ session_id: app.body.session_id });
    expect((await verify(browser, restarted.body.session_id, account.email)).body.state).toBe('Done');
  });

  it("a reload resumes its own request's sign-in, never another tab's", async () => {
    const account = await createAccount(t.ctx.db, { password: PASSWORD });
    const browser = t.agent();
    const app = await start(browser, account.email, '?interaction=app-tab');
    const athena = await start(browser, account.email, '?interaction=athena-tab');

    expect((await browser.get('/auth/login/ping?interaction=app-tab')).body.session).toMatchObject({ session_id: app.body.session_id });
    expect((await browser.get('/auth/login/ping?interaction=athena-tab')).body.session).toMatchObject({ session_id: athena.body.session_id });
    // Nyckel itself, or a request this browser has no sign-in for: nothing to resume.
    expect((await browser.get('/auth/login/ping')).body).toEqual({ session: null, email: null });
    expect((await browser.get('/auth/login/ping?interaction=unknown-tab')).body).toEqual({ session: null, email: null });
    // Another browser learns nothing from the same request's id.
    expect((await t.agent().get('/auth/login/ping?interaction=app-tab')).body).toEqual({ session: null, email: null });
    // A malformed interaction is a probe like any other: null, not 4xx.
    expect((await browser.get('/auth/login/ping?interaction=../x')).body).toEqual({ session: null, email: null });
  });

  it('pages of Nyckel itself are requests of their own too: the console and the profile signed in side by side', async () => {
    const account = await createAccount(t.ctx.db, { password: PASSWORD });
    const browser = t.agent();
    const consoleTab = await start(browser, account.email, '?return_to=%2Fadmin');
    const profileTab = await start(browser, account.email, '?return_to=%2Fprofile');
    const picker = await start(browser, account.email);

    expect((await browser.get('/auth/login/ping?return_to=%2Fadmin')).body.session).toMatchObject({ session_id: consoleTab.body.session_id });
    expect((await browser.get('/auth/login/ping?return_to=%2Fprofile')).body.session).toMatchObject({ session_id: profileTab.body.session_id });
    expect((await browser.get('/auth/login/ping')).body.session).toMatchObject({ session_id: picker.body.session_id });
    // The console's sign-in again (a reload that starts over) ends only the console's earlier one.
    const consoleAgain = await start(browser, account.email, '?return_to=%2Fadmin');
    expect(errorType(await verify(browser, consoleTab.body.session_id, account.email))).toBe('login_session_missing');
    expect((await browser.get(`/auth/login/ping?session_id=${profileTab.body.session_id}`)).body.session).toMatchObject({ state: 'CredentialsRequired' });
    expect((await verify(browser, consoleAgain.body.session_id, account.email)).body.state).toBe('Done');
  });

  it("a session id is useless in another browser, even one with sign-ins of its own", async () => {
    const account = await createAccount(t.ctx.db, { password: PASSWORD });
    const owner = t.agent();
    const { body } = await start(owner, account.email, '?interaction=owner-tab');
    const stranger = t.agent();
    await start(stranger, account.email, '?interaction=owner-tab');

    expect(errorType(await verify(stranger, body.session_id, account.email))).toBe('login_session_missing');
    expect((await stranger.get(`/auth/login/ping?session_id=${body.session_id}`)).body).toEqual({ session: null, email: null });
    expect((await verify(owner, body.session_id, account.email)).body.state).toBe('Done');
  });

  it("signing out clears the login cookie: a sign-in another tab has in progress ends", async () => {
    const account = await createAccount(t.ctx.db, { password: PASSWORD });
    const browser = t.agent();
    const signedIn = await start(browser, account.email);
    expect((await verify(browser, signedIn.body.session_id, account.email)).body.state).toBe('Done');
    const pending = await start(browser, account.email, '?interaction=later-tab');

    const out = await browser.post('/api/accounts/sessions/sign-out').send({});
    expect(out.body).toEqual({ status: 'signed_out' });
    expect(cookieShape(setCookies(out).get('nyckel_login'))).toBe('nyckel_login=<value>; Path=/auth; Expires=<date>; HttpOnly; SameSite=Lax');
    expect(errorType(await verify(browser, pending.body.session_id, account.email))).toBe('login_session_missing');
  });
});
