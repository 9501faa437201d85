import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBrowserHarness } from './harness.ts';
import { startLoopbackRp, type LoopbackRp } from './loopback-rp.ts';
import { alertText, enterEmail, enterPassword, expectTenantCard, PASSWORD, people } from './login-steps.ts';
import { t } from './texts.ts';

/**
 * The /login page of a sign-in that already finished, reached again with Back (or from a
 * bookmark): the page says so before anyone types, or sends the browser to the application to
 * start again, instead of taking the password and only then answering "expired".
 */
const h = useBrowserHarness();
const { personWithTenant } = people(h);
/** Where the restarting client says it starts its sign-in (intercepted in the browser: no such host). */
const initiateLoginUri = 'https://restart.example/start';

let rp: LoopbackRp;
let rpBase: string;

beforeAll(async () => {
  rp = await startLoopbackRp(h.server, ['back-rp', 'back-rp-restart']);
  rpBase = rp.base;
  // initiate_login_uri, as `npm run client -- update back-rp-restart --login-uri <uri>` registers it.
  const row = await h.server.ctx.db('oidc_clients').where({ client_id: 'back-rp-restart' }).first('metadata');
  const metadata = typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata;
  await h.server.ctx.db('oidc_clients').where({ client_id: 'back-rp-restart' }).update({ metadata: JSON.stringify({ ...metadata, initiate_login_uri: initiateLoginUri }) });
});

afterAll(() => rp?.close());

/** Signs in through the relying party on the real /login, to its callback; answers that /login's URL. */
async function signInThroughApp(clientId: string, email: string): Promise<URL> {
  const { page } = h;
  await page.goto(`${rpBase}/start?client=${clientId}`);
  await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.has('interaction'));
  const login = new URL(page.url());
  await enterEmail(page, email);
  await enterPassword(page, PASSWORD);
  await page.waitForURL(`${rpBase}/callback?**`);
  expect(await page.locator('#email').innerText()).toBe(email);
  return login;
}

describe('the login page of a finished sign-in, reached again', () => {
  it('says at once, before any typing, that the sign-in page was used, and signs in to Nyckel alone', async () => {
    const { page } = h;
    const { email, tenant } = await personWithTenant('back', PASSWORD);
    const login = await signInThroughApp('back-rp', email);

    await page.goBack();
    expect(await alertText(page)).toBe(t.en('errors.interaction_expired'));
    // The application's request is no longer part of the page: its form signs in to Nyckel alone.
    const shown = new URL(page.url());
    expect(shown.pathname).toBe('/login');
    expect([shown.searchParams.has('interaction'), shown.searchParams.has('client_id')]).toEqual([false, false]);
    await h.shot('login-back-ended');

    await enterEmail(page, email);
    await enterPassword(page, PASSWORD);
    await expectTenantCard(page, tenant);

    // The same from a bookmark of that page, in a browser that never saw the request.
    const other = await h.browser.newContext({ baseURL: h.base, locale: 'en-US' });
    try {
      const bookmarked = await other.newPage();
      await bookmarked.goto(login.pathname + login.search);
      expect(await alertText(bookmarked)).toBe(t.en('errors.interaction_expired'));
    } finally {
      await other.close();
    }
  });

  it("sends the browser to the application's initiate_login_uri, whose new request single sign-on answers", async () => {
    const { page, context } = h;
    const { email } = await personWithTenant('restart', PASSWORD);
    const restarts: URL[] = [];
    // restart.example is the application's own sign-in start: it begins a new request at once.
    await context.route(`${initiateLoginUri}**`, async (route) => {
      restarts.push(new URL(route.request().url()));
      await route.fulfill({ status: 302, headers: { location: `${rpBase}/start?client=back-rp-restart` } });
    });
    await signInThroughApp('back-rp-restart', email);

    await page.goBack();
    await page.waitForURL((url) => url.origin === rpBase && url.pathname === '/callback' && restarts.length === 1);
    expect(await page.locator('#email').innerText()).toBe(email);
    expect(Object.fromEntries(restarts[0]!.searchParams)).toEqual({ iss: h.server.issuer });
  });
});
