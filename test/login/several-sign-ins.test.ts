import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxLoginsPerBrowser } from '../../src/login/login-cookie.ts';
import { loadLoginSession } from '../../src/login/login-session.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount } from './fixtures.ts';
import { errorType, setCookies, start, type Browser } from './journey.ts';

/**
 * One browser, several tabs mid-sign-in: each tab's session_id goes on working while the others
 * start, finish or cancel (the login cookie holds the browser's newest sign-ins, login-cookie.ts),
 * and an id is still worth nothing in another browser.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const password = 'Correct-Horse-9';

async function startIn(browser: Browser, email: string, query = ''): Promise<string> {
  const res = await start(browser, email, query);
  expect([res.status, res.body.state]).toEqual([200, 'CredentialsRequired']);
  return res.body.session_id as string;
}

const verify = (browser: Browser, sessionId: string, email: string): Promise<Response> =>
  browser.post('/auth/login/verify-password').send({ session_id: sessionId, email, password });

const pingState = async (browser: Browser, sessionId: string): Promise<string | null> =>
  ((await browser.get(`/auth/login/ping?session_id=${sessionId}`)).body.session?.state as string | undefined) ?? null;

/** The value of a Set-Cookie line for the login cookie, as the browser would send it back. */
const loginCookieValue = (res: Response): string => {
  const line = setCookies(res).get('nyckel_login');
  expect(line).toBeTruthy();
  return line!.slice('nyckel_login='.length, line!.indexOf(';'));
};

describe('several sign-ins in one browser', () => {
  it('a start in a second tab leaves the first going: each finishes with its own session_id', async () => {
    const first = await createAccount(t.ctx.db, { password });
    const second = await createAccount(t.ctx.db, { password });
    const browser = t.agent();
    const tabA = await startIn(browser, first.email, '?client_id=app-x');
    const tabB = await startIn(browser, second.email, '?client_id=app-y');
    expect(tabB).not.toBe(tabA);

    const doneA = await verify(browser, tabA, first.email);
    expect([doneA.status, doneA.body.state, doneA.body.email]).toEqual([200, 'Done', first.email]);
    // Tab A's sign-in leaves the cookie; tab B's stays in it.
    expect(setCookies(doneA).get('nyckel_login')).not.toMatch(/Expires=Thu, 01 Jan 1970/);
    expect(await pingState(browser, tabA)).toBeNull();
    expect(await pingState(browser, tabB)).toBe('CredentialsRequired');

    const doneB = await verify(browser, tabB, second.email);
    expect([doneB.status, doneB.body.state, doneB.body.email]).toEqual([200, 'Done', second.email]);
    // The last one leaving ends the cookie.
    expect(setCookies(doneB).get('nyckel_login')).toMatch(/Expires=Thu, 01 Jan 1970/);
  });

  it('the same tab started again for the same request replaces its sign-in; another request in another tab stays', async () => {
    const account = await createAccount(t.ctx.db, { password });
    const browser = t.agent();
    const first = await startIn(browser, account.email, '?interaction=request-one');
    const otherTab = await startIn(browser, account.email, '?interaction=request-two');
    const again = await startIn(browser, account.email, '?interaction=request-one');

    expect(errorType(await verify(browser, first, account.email))).toBe('login_session_missing');
    expect(await loadLoginSession(t.ctx, first)).toBeNull();
    expect(await pingState(browser, otherTab)).toBe('CredentialsRequired');
    expect(await pingState(browser, again)).toBe('CredentialsRequired');
  });

  it('cancelling in one tab ends only that sign-in', async () => {
    const account = await createAccount(t.ctx.db, { password });
    const browser = t.agent();
    const tabA = await startIn(browser, account.email);
    const tabB = await startIn(browser, account.email);

    const cancelled = await browser.post('/auth/login/cancel').send({ session_id: tabB });
    expect(cancelled.status).toBe(204);
    expect(setCookies(cancelled).get('nyckel_login')).not.toMatch(/Expires=Thu, 01 Jan 1970/);
    expect(errorType(await verify(browser, tabB, account.email))).toBe('login_session_missing');
    expect((await verify(browser, tabA, account.email)).body.state).toBe('Done');
  });

  it(`keeps the newest ${maxLoginsPerBrowser}: older ones are refused and ended, and the cookie stays small`, async () => {
    const account = await createAccount(t.ctx.db, { password });
    const browser = t.agent();
    const ids: string[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 8; i++) {
      last = await start(browser, account.email);
      ids.push(last.body.session_id as string);
    }
    expect(loginCookieValue(last!).length).toBeLessThan(400);

    const oldest = ids.slice(0, 8 - maxLoginsPerBrowser);
    const newest = ids.slice(8 - maxLoginsPerBrowser);
    for (const id of oldest) {
      const res = await verify(browser, id, account.email);
      expect([res.status, errorType(res)]).toEqual([401, 'login_session_missing']);
      expect(await loadLoginSession(t.ctx, id)).toBeNull();
    }
    for (const id of newest) expect(await pingState(browser, id)).toBe('CredentialsRequired');
    // Finishing one leaves the others working.
    expect((await verify(browser, newest[0]!, account.email)).body.state).toBe('Done');
    for (const id of newest.slice(1)) expect(await pingState(browser, id)).toBe('CredentialsRequired');
    expect((await verify(browser, newest.at(-1)!, account.email)).body.state).toBe('Done');
  });

  it('a ping without session_id resumes the newest', async () => {
    const account = await createAccount(t.ctx.db, { password });
    const browser = t.agent();
    await startIn(browser, account.email);
    const newest = await startIn(browser, account.email);
    expect((await browser.get('/auth/login/ping')).body.session).toMatchObject({ session_id: newest });
  });
});

describe('an id of another browser', () => {
  it('is refused with 401 login_session_missing, however many sign-ins either browser has', async () => {
    const account = await createAccount(t.ctx.db, { password });
    const owner = t.agent();
    const ownerFirst = await startIn(owner, account.email);
    const ownerSecond = await startIn(owner, account.email);
    const stranger = t.agent();
    await startIn(stranger, account.email);
    await startIn(stranger, account.email);

    for (const id of [ownerFirst, ownerSecond]) {
      const res = await verify(stranger, id, account.email);
      expect([res.status, errorType(res)]).toEqual([401, 'login_session_missing']);
      expect(await pingState(stranger, id)).toBeNull();
    }
    expect((await verify(owner, ownerFirst, account.email)).body.state).toBe('Done');
  });

  it('cannot be added to a signed cookie: the list is signed as a whole', async () => {
    const account = await createAccount(t.ctx.db, { password });
    const owner = t.agent();
    const ownerId = await startIn(owner, account.email);
    const stranger = t.agent();
    const started = await start(stranger, account.email);
    const value = decodeURIComponent(loginCookieValue(started));
    expect(value).toMatch(/^s:[A-Za-z0-9_-]{43}\.[^.]+$/);

    const spliced = `s:${ownerId}.${value.slice(2)}`;
    const res = await t
      .agent()
      .post('/auth/login/verify-password')
      .set('Cookie', `nyckel_login=${encodeURIComponent(spliced)}`)
      .send({ session_id: ownerId, email: account.email, password });
    expect([res.status, errorType(res)]).toEqual([401, 'login_session_missing']);
  });
});
