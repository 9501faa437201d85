import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listPortalSessions } from '../../src/session/portal-session.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { codeAt, createTotpAccount, nextStep, password as totpPassword } from '../totp/helpers.ts';
import { errorOf, googleVerified, locationOf } from '../upstream/journey.ts';
import { startUpstream, visitUpstream, type TestUpstream } from '../upstream/upstream-provider.ts';
import { createAccount } from './fixtures.ts';
import { cookieShape, errorType, setCookies } from './journey.ts';

/**
 * The sign-in cookies behind an HTTPS issuer, as in production: `__Host-nyckel_login`,
 * `__Host-nyckel_upstream` and `__Host-nyckel_device` (Secure, Path=/, no Domain), so a sibling
 * subdomain cannot plant its own. The unprefixed names it could plant are not read. The test talks
 * plain HTTP to the app, so it carries the cookies by hand (a cookie jar keeps Secure ones for
 * HTTPS).
 */
const origin = 'https://id.example.test';
let t: TestApp;
let google: TestUpstream;
beforeAll(async () => {
  google = await startUpstream({ kind: 'google', nyckelOrigin: origin });
  t = await startTestApp({ env: { ISSUER: `${origin}/oauth2`, ...google.env } });
});
afterAll(async () => {
  await t?.close();
  await google?.close();
});

const password = 'Correct-Horse-9';
/** How each cookie is set over HTTPS: only its value, Max-Age and Expires vary. */
const hostCookie = (name: string, maxAge: number) => `__Host-${name}=<value>; Max-Age=${maxAge}; Path=/; Expires=<date>; HttpOnly; Secure; SameSite=Lax`;
/** How the sign-in ends it: the same name and path, or the browser keeps it. */
const ended = (name: string) => `__Host-${name}=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Lax`;

/** A browser, by hand: it sends back the cookies it was given, under the names it was given them. */
class Browser {
  readonly cookies = new Map<string, string>();

  constructor(planted: Record<string, string> = {}) {
    for (const [name, value] of Object.entries(planted)) this.cookies.set(name, value);
  }

  /** A signed value Nyckel gave this browser, whichever name it came under (what an attacker copies). */
  value(name: string): string {
    const value = this.cookies.get(`__Host-${name}`) ?? this.cookies.get(name);
    expect(value, name).toBeTruthy();
    return value!;
  }

  async get(path: string): Promise<Response> {
    return this.keep(await t.agent().get(path).set('Cookie', this.header()).redirects(0));
  }

  async post(path: string, body: Record<string, unknown>): Promise<Response> {
    return this.keep(await t.agent().post(path).set('Cookie', this.header()).send(body));
  }

  private header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private keep(res: Response): Response {
    for (const [name, line] of setCookies(res)) {
      const value = line.slice(name.length + 1, line.indexOf(';'));
      if (value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }
}

const ping = (browser: Browser, sessionId: string) => browser.get(`/auth/login/ping?session_id=${encodeURIComponent(sessionId)}`);
const verifyPassword = (browser: Browser, sessionId: string, email: string, pass = password) =>
  browser.post('/auth/login/verify-password', { session_id: sessionId, email, password: pass });

/** A sign-in started in the browser: its session id. */
async function startIn(browser: Browser, email: string): Promise<string> {
  const res = await browser.post('/auth/login/start', { email });
  expect(res.status).toBe(200);
  return res.body.session_id as string;
}

describe('the login cookie behind HTTPS', () => {
  it('is __Host-nyckel_login (Secure, Path=/, no Domain); the sign-in goes on with it and ends it under that name', async () => {
    expect(t.ctx.config.secureCookies).toBe(true);
    const account = await createAccount(t.ctx.db, { password });
    const browser = new Browser();
    const res = await browser.post('/auth/login/start', { email: account.email });
    expect(setCookies(res).has('nyckel_login')).toBe(false);
    expect(cookieShape(setCookies(res).get('__Host-nyckel_login'))).toBe(hostCookie('nyckel_login', t.ctx.config.loginSessionTtl));
    const sessionId = res.body.session_id as string;

    expect((await ping(browser, sessionId)).body.session).toMatchObject({ session_id: sessionId, state: 'CredentialsRequired' });
    const done = await verifyPassword(browser, sessionId, account.email);
    expect(done.body.state).toBe('Done');
    expect(setCookies(done).get('__Host-nyckel_login')).toBe(ended('nyckel_login'));
  });

  it('is not read under the unprefixed name a sibling subdomain could plant: login_session_missing', async () => {
    // The attacker's own sign-in gives a valid signed value, planted as `nyckel_login` for Domain=example.test.
    const account = await createAccount(t.ctx.db, { password });
    const attacker = new Browser();
    const sessionId = await startIn(attacker, account.email);
    const victim = new Browser({ nyckel_login: attacker.value('nyckel_login') });

    const planted = await verifyPassword(victim, sessionId, account.email);
    expect([planted.status, errorType(planted)]).toEqual([401, 'login_session_missing']);
    expect((await ping(victim, sessionId)).body.session).toBeNull();
    // The browser Nyckel gave the cookie to goes on.
    expect((await verifyPassword(attacker, sessionId, account.email)).body.state).toBe('Done');
  });
});

describe('the upstream cookie behind HTTPS', () => {
  const loginPath = (sessionId: string) => `/auth/login/oauth/google?session_id=${encodeURIComponent(sessionId)}`;

  /** A sign-in at CredentialsRequired sent to Google, who signs the account in: the start's answer and the callback path. */
  async function toGoogle(browser: Browser, email: string) {
    const toProvider = await browser.get(loginPath(await startIn(browser, email)));
    google.next({ account: { sub: `host-${Date.now()}-${Math.random()}`, ...googleVerified(email) } });
    const callback = await visitUpstream(google, locationOf(toProvider));
    expect(callback.pathname).toBe('/auth/oauth/callback/google');
    return { toProvider, callbackPath: `${callback.pathname}${callback.search}` };
  }

  it('is __Host-nyckel_upstream (Secure, Path=/, no Domain); the callback finishes with it and ends both sign-in cookies', async () => {
    const account = await createAccount(t.ctx.db, { password });
    const browser = new Browser();
    const { toProvider, callbackPath } = await toGoogle(browser, account.email);
    expect(setCookies(toProvider).has('nyckel_upstream')).toBe(false);
    expect(cookieShape(setCookies(toProvider).get('__Host-nyckel_upstream'))).toBe(hostCookie('nyckel_upstream', 600));

    const back = await browser.get(callbackPath);
    expect(locationOf(back)).toBe('/login/select-tenant');
    expect(setCookies(back).get('__Host-nyckel_session')).toMatch(/; Secure/);
    expect(setCookies(back).get('__Host-nyckel_upstream')).toBe(ended('nyckel_upstream'));
    expect(setCookies(back).get('__Host-nyckel_login')).toBe(ended('nyckel_login'));
  });

  it('does not finish the attacker’s Google sign-in in a browser where a sibling subdomain planted unprefixed copies (login CSRF)', async () => {
    // The attacker starts a sign-in for their own account and stops before the callback.
    const account = await createAccount(t.ctx.db, { password });
    const attacker = new Browser();
    const { callbackPath } = await toGoogle(attacker, account.email);

    // The victim's browser, sent top-level to that callback with both cookies planted unprefixed.
    const victim = new Browser({ nyckel_login: attacker.value('nyckel_login'), nyckel_upstream: attacker.value('nyckel_upstream') });
    const res = await victim.get(callbackPath);
    expect(errorOf(locationOf(res))).toBe('oauth/state_mismatch');
    expect(victim.cookies.has('__Host-nyckel_session')).toBe(false);
    expect(await listPortalSessions(t.ctx, account.id)).toEqual([]);
  });
});

describe('the remembered-device cookie behind HTTPS', () => {
  it('is __Host-nyckel_device (Secure, Path=/, no Domain); the next sign-in skips the code with it, not with an unprefixed copy', async () => {
    const account = await createTotpAccount(t.ctx);
    const browser = new Browser();
    const sessionId = await startIn(browser, account.email);
    expect((await verifyPassword(browser, sessionId, account.email, totpPassword)).body.state).toBe('MfaRequired');
    const done = await browser.post('/auth/login/verify-mfa', { session_id: sessionId, totp_code: await codeAt(t.ctx, account.secrets[0]!), remember: true });
    expect(done.body.state).toBe('Done');
    expect(setCookies(done).has('nyckel_device')).toBe(false);
    expect(cookieShape(setCookies(done).get('__Host-nyckel_device'))).toBe(hostCookie('nyckel_device', t.ctx.config.rememberDeviceDays * 86_400));
    // The profile marks this browser's device as current by the prefixed cookie.
    expect((await browser.get('/auth/tfa/devices')).body.devices).toMatchObject([{ current: true }]);

    nextStep(t.ctx);
    const passwordStep = async (at: Browser) => (await verifyPassword(at, await startIn(at, account.email), account.email, totpPassword)).body.state;
    expect(await passwordStep(new Browser({ nyckel_device: browser.value('nyckel_device') }))).toBe('MfaRequired');
    expect(await passwordStep(browser)).toBe('Done');
  });

  it('reaches the profile (Path=/): signing the others out leaves this browser remembered, the others not', async () => {
    const account = await createTotpAccount(t.ctx);
    const rememberedIn = async (browser: Browser) => {
      const sessionId = await startIn(browser, account.email);
      expect((await verifyPassword(browser, sessionId, account.email, totpPassword)).body.state).toBe('MfaRequired');
      const done = await browser.post('/auth/login/verify-mfa', { session_id: sessionId, totp_code: await codeAt(t.ctx, account.secrets[0]!), remember: true });
      expect(done.body.state).toBe('Done');
      nextStep(t.ctx);
    };
    const other = new Browser();
    const here = new Browser();
    await rememberedIn(other);
    await rememberedIn(here);
    expect((await here.post('/api/accounts/sessions/sign-out-others', {})).body).toEqual({ sessions: 1, applications: 0 });

    const passwordStep = async (at: Browser) => (await verifyPassword(at, await startIn(at, account.email), account.email, totpPassword)).body.state;
    expect(await passwordStep(other)).toBe('MfaRequired');
    expect(await passwordStep(here)).toBe('Done');
  });
});
