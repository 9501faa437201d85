import request, { type Response } from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { upsertClient } from '../../src/oidc/clients.ts';
import { errorExplanation, type PageFlow } from '../../src/oidc/page-texts.ts';
import { errorPage } from '../../src/oidc/pages.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { withMinuteWindowLeft } from '../helpers/minute-window.ts';

/**
 * What a person's browser is shown on oidc-provider's front channel when a sign-in or sign-out
 * cannot go on: in their language, what happened and what to do; the OAuth error only as a small
 * line for the application's developers.
 */
const redirectUri = 'http://127.0.0.1:9/callback';
const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** The sentence under the page's title, and the developers' line. */
const explanationOf = (html: string) => /<\/h1><p>([^<]*)<\/p>/.exec(html)?.[1];
const referenceOf = (html: string) => /<p class="reference">(.*?)<\/p>/s.exec(html)?.[1];

/** An error page titled `title` that says `says` (escaped), with `code` and oidc-provider's `description` on the developers' line only. */
function expectErrorPage(res: Response, { title, says, code, description }: { title: string; says: string; code: string; description: string }) {
  expect(res.status).toBe(400);
  expect(res.headers['content-type']).toMatch(/^text\/html/);
  expect(res.text).toContain(`<title>${title}</title>`);
  expect(res.text).toContain(`<h1>${title}</h1>`);
  expect(explanationOf(res.text)).toContain(says);
  expect(referenceOf(res.text)).toContain(`<code>${code}</code> ${description}`);
  expect(res.text.split(description)).toHaveLength(2);
}

describe('the error page of a sign-in or sign-out in a browser', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    await upsertClient(t.ctx.db, { client_id: 'pages-rp', redirect_uris: [redirectUri], post_logout_redirect_uris: ['http://127.0.0.1:9/'] });
  });
  afterAll(async () => {
    await t?.close();
  });

  const authorization = (extra: Record<string, string>) =>
    `/oauth2/authorize?${new URLSearchParams({ response_type: 'code', scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', ...extra })}`;

  it.each([
    {
      what: 'an unknown client, in Swedish (ui_locales)',
      path: authorization({ client_id: 'nobody', redirect_uri: redirectUri, ui_locales: 'sv' }),
      language: 'en',
      title: 'Inloggningen kunde inte fortsätta',
      says: 'Programmet som skickade dig hit är okänt för Nyckel. Kontakta den som ansvarar för programmet',
      code: 'invalid_client',
      description: 'client is invalid',
    },
    {
      what: 'a redirect_uri the client did not register',
      path: authorization({ client_id: 'pages-rp', redirect_uri: 'https://elsewhere.example/cb' }),
      language: 'en',
      title: 'Sign-in could not continue',
      says: 'The application asked Nyckel to send you back to an address it has not registered. Contact the application&#39;s owner',
      code: 'invalid_redirect_uri',
      description: 'redirect_uri did not match any of the client&#39;s registered redirect_uris',
    },
    {
      what: 'a request without its redirect_uri, in Swedish (Accept-Language)',
      path: authorization({ client_id: 'pages-rp' }),
      language: 'sv-SE,sv;q=0.9',
      title: 'Inloggningen kunde inte fortsätta',
      says: 'Programmets begäran om inloggning var ofullständig eller ogiltig. Gå tillbaka till programmet och försök igen',
      code: 'invalid_request',
      description: "missing required parameter 'redirect_uri'".replaceAll("'", '&#39;'),
    },
    {
      what: 'a logout to a post_logout_redirect_uri the client did not register',
      path: `/oauth2/logout?${new URLSearchParams({ client_id: 'pages-rp', post_logout_redirect_uri: 'https://elsewhere.example/' })}`,
      language: 'en',
      title: 'Sign-out could not continue',
      says: 'an address it has not registered, so you were not signed out. Contact the application&#39;s owner',
      code: 'invalid_request',
      description: 'post_logout_redirect_uri not registered',
    },
    {
      what: 'a logout with an id_token_hint that is not an ID token, in Swedish',
      path: '/oauth2/logout?id_token_hint=abc',
      language: 'sv',
      title: 'Utloggningen kunde inte fortsätta',
      says: 'Programmets begäran om utloggning var ogiltig. Gå tillbaka till programmet och logga ut igen',
      code: 'invalid_request',
      description: 'could not decode id_token_hint',
    },
    {
      what: 'a logout for an unknown client',
      path: '/oauth2/logout?client_id=nobody&ui_locales=en',
      language: 'sv',
      title: 'Sign-out could not continue',
      says: 'The application that sent you here is not known to Nyckel.',
      code: 'invalid_client',
      description: 'client is invalid',
    },
  ])('explains $what, and names the error for developers', async ({ path, language, title, ...page }) => {
    const res = await request(t.server).get(path).set('Accept', browserAccept).set('Accept-Language', language).redirects(0);
    expectErrorPage(res, { title, ...page });
  });

  it("titles an error at the logout's confirmation or its last page as a sign-out's", async () => {
    // The confirmation of a logout this browser never started.
    const confirm = await t.agent().post('/oauth2/logout/confirm').type('form').send({ xsrf: 'forged', logout: 'yes' }).set('Accept', browserAccept).set('Accept-Language', 'sv');
    expectErrorPage(confirm, {
      title: 'Utloggningen kunde inte fortsätta',
      says: 'Programmets begäran om utloggning var ogiltig.',
      code: 'invalid_request',
      description: 'could not find logout details',
    });
    const success = await request(t.server).get('/oauth2/logout/success?client_id=nobody').set('Accept', browserAccept);
    expectErrorPage(success, {
      title: 'Sign-out could not continue',
      says: 'The application that sent you here is not known to Nyckel.',
      code: 'invalid_client',
      description: 'client is invalid',
    });
  });

  it('prints what it shows of an error escaped, whatever the code and description say', () => {
    const { body } = errorPage('en', 'sign-in', { error: '<script>alert(1)</script>', error_description: '"><img src=x onerror=alert(1)>' });
    expect(body).not.toMatch(/<script|<img/);
    expect(body).toContain('<code>&lt;script&gt;alert(1)&lt;/script&gt;</code> &quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
  });

  const fallback = (flow: PageFlow, language: 'en' | 'sv') => errorExplanation(language, flow, 'no_such_error');
  it.each([
    ...['invalid_client', 'invalid_redirect_uri', 'invalid_request', 'invalid_request_uri', 'request_uri_not_supported', 'unsupported_response_type', 'login_required', 'access_denied', 'temporarily_unavailable', 'server_error'].map(
      (code) => ['sign-in', code] as const,
    ),
    ...['invalid_client', 'invalid_request', 'temporarily_unavailable', 'server_error'].map((code) => ['sign-out', code] as const),
  ])('has its own words for a %s error %s, in English and Swedish', (flow, code) => {
    const en = errorExplanation('en', flow, code);
    const sv = errorExplanation('sv', flow, code);
    expect(en).not.toBe(fallback(flow, 'en'));
    expect(sv).not.toBe(fallback(flow, 'sv'));
    expect(sv).not.toBe(en);
  });

  it("has no words for a code that is only Object's property", () => {
    expect(errorExplanation('en', 'sign-in', 'constructor')).toBe(fallback('sign-in', 'en'));
    expect(errorExplanation('en', 'sign-out', '__proto__')).toBe(fallback('sign-out', 'en'));
  });
});

describe("a browser over its address's budget of authorizations and logouts", () => {
  let limited: TestApp;
  beforeAll(async () => {
    // Behind one proxy: each test comes from its own address (X-Forwarded-For).
    limited = await startTestApp({ env: { AUTHORIZE_RATE_LIMIT_PER_MINUTE: '2', TRUST_PROXY: '1' } });
  });
  afterAll(async () => {
    await limited?.close();
  });
  beforeEach(withMinuteWindowLeft, 20_000);

  const from = (address: string, path: string) => request(limited.server).get(path).set('X-Forwarded-For', address).redirects(0);

  it("is told in a page in its language to wait, with Retry-After; a relying party's code still gets JSON", async () => {
    for (let i = 0; i < 2; i += 1) expect((await from('203.0.113.30', '/oauth2/logout')).status).toBe(200);

    const swedish = await from('203.0.113.30', '/oauth2/authorize?client_id=pages-rp').set('Accept', browserAccept).set('Accept-Language', 'sv-SE,sv;q=0.9,en;q=0.5');
    expect(swedish.status).toBe(429);
    expect(Number(swedish.headers['retry-after'])).toBeGreaterThan(0);
    expect(swedish.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(swedish.headers['cache-control']).toBe('no-store');
    expect(swedish.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(swedish.text).toContain('<html lang="sv">');
    expect(swedish.text).toContain('<h1>För många försök från ditt nätverk</h1>');
    expect(swedish.text).toContain('Vänta en stund och försök igen.');
    expect(swedish.text).toContain('<code>slow_down</code>');

    // ui_locales comes before Accept-Language, as on the other pages.
    const english = await from('203.0.113.30', '/oauth2/logout?ui_locales=en').set('Accept', browserAccept).set('Accept-Language', 'sv');
    expect(english.status).toBe(429);
    expect(english.text).toContain('<h1>Too many attempts from your network</h1>');
    expect(english.text).toContain('Wait a moment and try again.');

    for (const accept of ['application/json', '*/*']) {
      const json = await from('203.0.113.30', '/oauth2/authorize?client_id=pages-rp').set('Accept', accept);
      expect(json.status).toBe(429);
      expect(Number(json.headers['retry-after'])).toBeGreaterThan(0);
      expect(json.body).toEqual({ error: 'slow_down', error_description: 'too many requests, try again later' });
    }
  });
});
