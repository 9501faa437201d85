import { createHash, randomBytes } from 'node:crypto';
import request, { type Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertClient } from '../../src/oidc/clients.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount } from '../login/fixtures.ts';
import { setCookies } from '../login/journey.ts';

/**
 * oidc-provider's session cookie behind an HTTPS issuer, as in production (a proxy in front says
 * https): `__Host-nyckel_op_session` with its `.sig`, Secure, Path=/, no Domain, like the portal's
 * own. A sibling subdomain cannot plant a copy of its own signed-in OP session; an unprefixed copy
 * it could plant is not read, so it cannot sign the person in to a relying party as the attacker.
 */
const origin = 'https://id.example.test';
const redirectUri = 'https://rp.example.test/callback';
const clientSecret = 'secure-rp-secret-0123456789abcdef';
const password = 'Correct-Horse-9';
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { ISSUER: `${origin}/oauth2`, TRUST_PROXY: '1' } });
  await upsertClient(t.ctx.db, { client_id: 'secure-rp', redirect_uris: [redirectUri], client_secret: clientSecret });
});
afterAll(async () => {
  await t?.close();
});

/** A browser on https, by hand: the proxy's X-Forwarded-Proto, and the cookies it was given, by name. */
class Browser {
  readonly cookies = new Map<string, string>();
  readonly setCookieLines = new Map<string, string>();

  async get(path: string): Promise<Response> {
    return this.keep(await t.agent().get(path).set('X-Forwarded-Proto', 'https').set('Host', 'id.example.test').set('Cookie', this.header()).redirects(0));
  }

  async post(path: string, body: Record<string, unknown>): Promise<Response> {
    return this.keep(await t.agent().post(path).set('X-Forwarded-Proto', 'https').set('Host', 'id.example.test').set('Origin', origin).set('Cookie', this.header()).send(body));
  }

  /** Follows redirects on this origin; answers the first location elsewhere (the relying party's callback) or a page here. */
  async follow(path: string): Promise<URL> {
    let url = new URL(path, origin);
    for (let i = 0; i < 10 && url.origin === origin; i += 1) {
      const res = await this.get(url.pathname + url.search);
      if (res.status < 300 || res.status >= 400) return url;
      url = new URL(res.headers.location!, url);
    }
    return url;
  }

  private header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private keep(res: Response): Response {
    for (const [name, line] of setCookies(res)) {
      const value = line.slice(name.length + 1, line.indexOf(';'));
      this.setCookieLines.set(name, line);
      if (value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }
}

function authorization(): { path: string; verifier: string } {
  const verifier = randomBytes(32).toString('base64url');
  const query = new URLSearchParams({
    client_id: 'secure-rp',
    response_type: 'code',
    redirect_uri: redirectUri,
    scope: 'openid email',
    state: randomBytes(8).toString('base64url'),
    nonce: randomBytes(8).toString('base64url'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  return { path: `/oauth2/authorize?${query}`, verifier };
}

/** Signs in on /login with a password; with `search` (the login page's query), for an authorization. */
async function signIn(browser: Browser, email: string, search = ''): Promise<string> {
  const started = await browser.post(`/auth/login/start${search}`, { email });
  const done = await browser.post('/auth/login/verify-password', { session_id: started.body.session_id, email, password });
  expect(done.body.state).toBe('Done');
  return done.body.redirect_to as string;
}

/** The authorization's code, exchanged: whose email the ID token carries. */
async function emailOf(callback: URL, verifier: string): Promise<string> {
  const code = callback.searchParams.get('code');
  expect(code, `no code in ${callback}`).toBeTruthy();
  // The relying party's server: no browser, no Origin.
  const tokens = await request(t.server)
    .post('/oauth2/token')
    .set('X-Forwarded-Proto', 'https')
    .set('Host', 'id.example.test')
    .auth('secure-rp', clientSecret)
    .type('form')
    .send({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier });
  expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
  const payload = JSON.parse(Buffer.from((tokens.body.id_token as string).split('.')[1]!, 'base64url').toString()) as { email: string };
  return payload.email;
}

/** A full authorization in `browser`, signing in on /login as `email` if asked to. */
async function authorize(browser: Browser, email: string): Promise<string> {
  const { path, verifier } = authorization();
  let url = await browser.follow(path);
  if (url.origin === origin) url = await browser.follow(await signIn(browser, email, url.search));
  return emailOf(url, verifier);
}

describe('the provider session cookie behind HTTPS', () => {
  it('is __Host-nyckel_op_session with its signature (Secure, Path=/, no Domain), and single sign-on goes on with it', async () => {
    const account = await createAccount(t.ctx.db, { password });
    const browser = new Browser();
    expect(await authorize(browser, account.email)).toBe(account.email);

    expect(browser.cookies.has('nyckel_op_session')).toBe(false);
    for (const name of ['__Host-nyckel_op_session', '__Host-nyckel_op_session.sig']) {
      const line = browser.setCookieLines.get(name);
      expect(line, name).toMatch(/; secure/i);
      expect(line).toMatch(/; path=\/(;|$)/i);
      expect(line).not.toMatch(/domain=/i);
    }
    // The next authorization is answered from the provider session: no /login.
    const { path, verifier } = authorization();
    const callback = await browser.follow(path);
    expect(callback.origin + callback.pathname).toBe(redirectUri);
    expect(await emailOf(callback, verifier)).toBe(account.email);
  });

  it('does not read an unprefixed copy a sibling subdomain planted: the person is signed in to the relying party as themselves', async () => {
    const attacker = await createAccount(t.ctx.db, { password });
    const victim = await createAccount(t.ctx.db, { password });
    const attackers = new Browser();
    expect(await authorize(attackers, attacker.email)).toBe(attacker.email);

    const victims = new Browser();
    await signIn(victims, victim.email);
    // Copies of the attacker's signed-in OP session cookie, set for the parent domain.
    const copy = (name: string) => attackers.cookies.get(`__Host-${name}`) ?? attackers.cookies.get(name)!;
    victims.cookies.set('nyckel_op_session', copy('nyckel_op_session'));
    victims.cookies.set('nyckel_op_session.sig', copy('nyckel_op_session.sig'));
    expect(await authorize(victims, victim.email)).toBe(victim.email);
  });

  it('is ended under its prefixed name when the person signs this browser out', async () => {
    const account = await createAccount(t.ctx.db, { password });
    const browser = new Browser();
    await authorize(browser, account.email);
    const out = await browser.post('/api/accounts/sessions/sign-out', {});
    expect(out.status).toBe(200);
    expect(setCookies(out).get('__Host-nyckel_op_session')).toMatch(/Expires=Thu, 01 Jan 1970/);
    expect(browser.cookies.has('__Host-nyckel_op_session')).toBe(false);
  });
});
