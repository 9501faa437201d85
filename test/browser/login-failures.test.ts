import type { Page, Route } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { emailCodeKeys } from '../../src/credentials/email-code/email-code.ts';
import { useBrowserHarness } from './harness.ts';
import { alertText, enterEmail, enterPassword, expectFocusOn, expectTenantCard, openLogin, PASSWORD, people } from './login-steps.ts';
import { t } from './texts.ts';

/**
 * The sign-in pages when a call fails for a reason that may pass — no answer, too many requests, a
 * proxy's or Nyckel's own 5xx (made with page.route against the real app) — and the focus and busy
 * states around sending a new code. Every check is on what the page shows, where focus is, or
 * where the browser is.
 */
const h = useBrowserHarness();

const { uniqueEmail, personWithTenant } = people(h);

/** `promise`, or a clear failure after `seconds` rather than the test's whole timeout. */
function within<T>(promise: Promise<T>, what: string, seconds = 15): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} never came (${seconds} s)`)), seconds * 1000);
  });
  const raced = Promise.race([promise, late]).finally(() => clearTimeout(timer));
  // Handled here too: a test that failed before awaiting it must not also end in an unhandled rejection.
  raced.catch(() => undefined);
  return raced;
}

/**
 * Holds the next request to `url` until the test lets it go on. Resolves once the route is in
 * place (so a key press right after cannot slip past it); `held` answers the held route.
 */
async function holdNextRequest(page: Page, url: string): Promise<{ held: Promise<Route> }> {
  let hold!: (route: Route) => void;
  const held = new Promise<Route>((resolve) => (hold = resolve));
  await page.route(url, (route) => hold(route), { times: 1 });
  return { held: within(held, `a request to ${url}`) };
}

/**
 * One route at `url` for the whole test: it answers with `failure` until `holdNext()`, then holds
 * the next request for the test to let go on (the promise holdNext returns), and lets every later
 * one through. Set up once, before the page loads: a route taken down and set up again mid-test
 * (unroute, then route) now and then let the next request slip past it on a busy machine.
 */
async function failThenHold(page: Page, url: string, failure: Failure): Promise<{ holdNext(): Promise<Route> }> {
  let holding: ((route: Route) => void) | undefined;
  let passing = false;
  await page.route(url, (route) => {
    if (passing) return route.continue();
    if (!holding) return failure.answer(route);
    holding(route);
    holding = undefined;
    passing = true;
  });
  return {
    holdNext: () => within(new Promise<Route>((resolve) => (holding = resolve)), `a request to ${url}`),
  };
}

/** How a call fails: what the page is sent instead of the real answer. */
type Failure = { name: string; answer: (route: Route) => Promise<void>; key: string };

const FAILURES: Record<'nyckel503' | 'proxy502' | 'plain429' | 'noAnswer', Failure> = {
  nyckel503: {
    name: "Nyckel's own 503",
    answer: (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', headers: { 'Retry-After': '5' }, body: '{"detail":[{"type":"service_unavailable","msg":"Service temporarily unavailable"}]}' }),
    key: 'errors.service_unavailable',
  },
  proxy502: {
    name: "a proxy's 502 page",
    answer: (route) => route.fulfill({ status: 502, contentType: 'text/html', body: '<html><body><h1>502 Bad Gateway</h1></body></html>' }),
    key: 'errors.service_unavailable',
  },
  plain429: {
    name: 'a plain-text 429',
    answer: (route) => route.fulfill({ status: 429, contentType: 'text/plain', body: 'Too Many Requests' }),
    key: 'errors.too_many_requests',
  },
  noAnswer: {
    name: 'no answer at all',
    answer: (route) => route.abort('connectionrefused'),
    key: 'errors.network_error',
  },
};

describe('a reset link that cannot be checked', () => {
  async function requestResetLink(page: Page, email: string): Promise<string> {
    await page.goto('/login/reset-password');
    await page.getByLabel(t.en('login.start.email'), { exact: true }).fill(email);
    await page.getByRole('button', { name: t.en('reset.submit'), exact: true }).click();
    await page.getByRole('heading', { name: t.en('reset.sent_title'), exact: true }).waitFor();
    const mail = await h.mail.waitFor(email, (message) => message.text.includes('/login/set-password/'));
    return /https?:\/\/\S+\/login\/set-password\/[^\s"<>]+/.exec(mail.text)![0];
  }

  it.each([
    { failure: FAILURES.nyckel503, language: 'en' },
    { failure: FAILURES.proxy502, language: 'en' },
    { failure: FAILURES.plain429, language: 'en' },
    { failure: FAILURES.noAnswer, language: 'sv' },
  ] as const)('$failure.name ($language): the page stays with its token, says so, and Try again checks it again', async ({ failure, language }) => {
    const { page } = h;
    const { email } = await personWithTenant('unchecked', PASSWORD);
    const link = await requestResetLink(page, email);
    const target = language === 'sv' ? `${link}?lang=sv` : link;
    const tryAgain = page.getByRole('button', { name: t[language]('app.retry'), exact: true });

    // Every check fails until the test lets them through (a development build checks twice on
    // mount, as StrictMode runs effects twice).
    const checks = await failThenHold(page, '**/auth/reset/check-token', failure);
    await page.goto(target);

    expect(await alertText(page)).toBe(t[language](failure.key));
    expect(page.url()).toBe(target);
    expect(await page.getByLabel(t[language]('password.new'), { exact: true }).count()).toBe(0);
    expect(await page.getByText(t[language]('set_password.invalid_help'), { exact: true }).count()).toBe(0);
    await expectFocusOn(page, 'button', t[language]('app.retry'));

    // Try again (Enter, focus is on it) is busy while the check runs, then the form shows.
    const held = checks.holdNext();
    await page.keyboard.press('Enter');
    const route = await held;
    expect(await tryAgain.getAttribute('aria-busy')).toBe('true');
    await route.continue();
    await page.getByLabel(t[language]('password.new'), { exact: true }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(page.url()).toBe(target);
  });
});

describe('the tenant selection when the list cannot be loaded', () => {
  async function signInToTenants(page: Page, name: string) {
    const person = await personWithTenant(name, PASSWORD);
    await openLogin(page);
    await enterEmail(page, person.email);
    await enterPassword(page, PASSWORD);
    await expectTenantCard(page, person.tenant);
    return person;
  }

  it.each([
    { failure: FAILURES.proxy502, language: 'en' },
    { failure: FAILURES.nyckel503, language: 'en' },
    { failure: FAILURES.plain429, language: 'en' },
    { failure: FAILURES.noAnswer, language: 'sv' },
  ] as const)('$failure.name ($language): says so, offers Try again and signing out, and Try again loads the tenants', async ({ failure, language }) => {
    const { page } = h;
    const { email, tenant } = await signInToTenants(page, 'tenantsdown');
    const tryAgain = page.getByRole('button', { name: t[language]('app.retry'), exact: true });

    const lists = await failThenHold(page, '**/auth/available-tenants', failure);
    await page.goto(language === 'sv' ? '/login/select-tenant?lang=sv' : '/login/select-tenant');

    expect(await alertText(page)).toBe(t[language](failure.key));
    expect(new URL(page.url()).pathname).toBe('/login/select-tenant');
    await page.getByRole('heading', { name: t[language]('tenants.title'), exact: true }).waitFor();
    await page.getByText(t[language]('tenants.signed_in_as', { email }), { exact: true }).waitFor();
    await page.getByRole('button', { name: t[language]('tenants.sign_out'), exact: true }).waitFor();
    await expectFocusOn(page, 'button', t[language]('app.retry'));

    const held = lists.holdNext();
    await page.keyboard.press('Enter');
    const route = await held;
    expect(await tryAgain.getAttribute('aria-busy')).toBe('true');
    await route.continue();
    await page.getByRole('link', { name: new RegExp(tenant.name) }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
  });

  it('a 401 (the session is gone) still leads to /login', async () => {
    const { page } = h;
    await signInToTenants(page, 'tenantsgone');
    await page.route('**/auth/available-tenants', (route) =>
      route.fulfill({ status: 401, contentType: 'application/json', body: '{"detail":[{"type":"unauthorized","msg":"Not signed in"}]}' }),
    );
    await page.reload();
    await page.waitForURL((url) => url.pathname === '/login');
    await page.getByLabel(t.en('login.start.email'), { exact: true }).waitFor();
  });
});

describe('sign-in calls answered by a proxy or a busy server', () => {
  it.each([
    { failure: FAILURES.proxy502, language: 'en' },
    { failure: FAILURES.plain429, language: 'en' },
    { failure: FAILURES.nyckel503, language: 'en' },
    { failure: FAILURES.proxy502, language: 'sv' },
  ] as const)('$failure.name ($language) says what happened, not "Failed to authenticate"', async ({ failure, language }) => {
    const { page } = h;
    const { email, tenant } = await personWithTenant('proxied', PASSWORD);
    // The check can only fail if the messages differ.
    expect(t[language](failure.key)).not.toBe(t[language]('errors.failed_to_authenticate'));

    await openLogin(page, language, language === 'sv' ? '?lang=sv' : '');
    await enterEmail(page, email, language);
    await page.route('**/auth/login/verify-password', (route) => failure.answer(route), { times: 1 });
    await enterPassword(page, PASSWORD, language);

    expect(await alertText(page)).toBe(t[language](failure.key));
    // The form stays: the same password works once the server answers.
    await page.getByRole('button', { name: t[language]('login.credentials.submit'), exact: true }).click();
    await expectTenantCard(page, tenant);
  });
});

describe('a new email code', () => {
  const digitBox = (page: Page, n: number) => page.getByLabel(t.en('login.otp.digit', { n }), { exact: true });
  const resendButton = (page: Page) => page.getByRole('button', { name: t.en('login.otp.resend'), exact: true });
  const verifyButton = (page: Page) => page.getByRole('button', { name: t.en('login.otp.submit'), exact: true });
  const nextCode = async (email: string) => /\b(\d{6})\b/.exec((await h.mail.waitFor(email, (mail) => /\b\d{6}\b/.test(mail.text))).text)![1]!;

  /** Email entered, the code step shown and its first code mailed; answers the login session id. */
  async function reachCodeStep(page: Page, email: string): Promise<string> {
    await openLogin(page);
    const started = page.waitForResponse((response) => new URL(response.url()).pathname === '/auth/login/start');
    await enterEmail(page, email);
    const { session_id: sessionId } = (await (await started).json()) as { session_id: string };
    await page.getByRole('heading', { name: t.en('login.otp.title'), exact: true }).waitFor();
    await nextCode(email);
    return sessionId;
  }

  /** Types the code where focus is, digit by digit, as a person does. */
  async function typeCode(page: Page, code: string) {
    for (const digit of code) await page.keyboard.type(digit);
  }

  it('Send a new code is busy (not Verify) while it runs, then focus is in the first box and the new code can be typed', async () => {
    const { page } = h;
    const { email, tenant } = await personWithTenant('resender');
    await reachCodeStep(page, email);

    const { held } = await holdNextRequest(page, '**/auth/login/resend-otp');
    await resendButton(page).focus();
    await page.keyboard.press('Enter');
    const route = await held;
    expect(await resendButton(page).getAttribute('aria-busy')).toBe('true');
    expect(await verifyButton(page).getAttribute('aria-busy')).toBeNull();
    expect(await verifyButton(page).isDisabled()).toBe(true);
    await route.continue();

    await page.getByText(t.en('login.otp.resent'), { exact: true }).waitFor();
    await expectFocusOn(page, 'input', t.en('login.otp.digit', { n: 1 }));
    await typeCode(page, await nextCode(email));

    // Skip is busy, not Create password, while the skip runs.
    await page.getByRole('heading', { name: t.en('login.create_credential.title'), exact: true }).waitFor();
    const skip = page.getByRole('button', { name: t.en('login.create_credential.skip'), exact: true });
    const create = page.getByRole('button', { name: t.en('login.create_credential.submit'), exact: true });
    const { held: skipping } = await holdNextRequest(page, '**/auth/login/skip-create-password');
    await skip.click();
    const skipRoute = await skipping;
    expect(await skip.getAttribute('aria-busy')).toBe('true');
    expect(await create.getAttribute('aria-busy')).toBeNull();
    expect(await create.isDisabled()).toBe(true);
    await skipRoute.continue();
    await expectTenantCard(page, tenant);
  });

  it('after an expired code, the boxes come back with the new code and focus is in the first one', async () => {
    const { page } = h;
    const { email, tenant } = await personWithTenant('expired');
    const sessionId = await reachCodeStep(page, email);
    // The code runs out (its store entry is gone, as after its TTL).
    const [codeKey] = emailCodeKeys(sessionId);
    await h.server.ctx.store.del(codeKey!);

    await digitBox(page, 1).focus();
    await typeCode(page, '123456');
    expect(await alertText(page)).toBe(t.en('errors.otp_session_invalid'));
    expect(await digitBox(page, 1).count()).toBe(0);
    await expectFocusOn(page, 'button', t.en('login.otp.resend'));

    await page.keyboard.press('Enter');
    await page.getByText(t.en('login.otp.resent'), { exact: true }).waitFor();
    await expectFocusOn(page, 'input', t.en('login.otp.digit', { n: 1 }));
    await typeCode(page, await nextCode(email));
    await page.getByRole('heading', { name: t.en('login.create_credential.title'), exact: true }).waitFor();
    await page.getByRole('button', { name: t.en('login.create_credential.skip'), exact: true }).click();
    await expectTenantCard(page, tenant);
  });
});
