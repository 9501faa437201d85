import { generate } from 'otplib';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createAccount, createTenant, grantAccess } from '../fixtures/accounts.ts';
import { useBrowserHarness } from './harness.ts';
import { alertText, expectTenantCard } from './login-steps.ts';
import { t } from './texts.ts';

/**
 * Two-factor enrolment as a person does it: sign in with a password, open the setup page, type the
 * key the page shows into an "authenticator" (otplib here), activate, and from then on sign-in
 * asks for a code. Real app, real Chromium; every check is on what the page shows.
 */
const h = useBrowserHarness();

let counter = 0;
const PASSWORD = 'Correct-Horse-42!';
const PERIOD_SECONDS = 30;
const SETUP_PATH = '/profile/credentials/totp/setup';

/** Enrolment and a second sign-in in another browser: two journeys in one test. */
const JOURNEY_TIMEOUT_MS = 120_000;

async function personWithTenant(name: string) {
  counter += 1;
  const email = `${name}-${counter}@example.test`;
  const accountId = await createAccount(h.server.ctx.db, { email, password: PASSWORD });
  const slug = `${name}${counter}`;
  const tenantName = `${name} Recruiting ${counter}`;
  const tenantId = await createTenant(h.server.ctx.db, slug, { name: tenantName });
  await grantAccess(h.server.ctx.db, accountId, tenantId);
  return { email, tenant: { name: tenantName, slug } };
}

async function signInWithPassword(page: Page, email: string) {
  await page.goto('/login');
  await page.getByLabel(t.en('login.start.email'), { exact: true }).fill(email);
  await page.getByRole('button', { name: t.en('login.start.submit'), exact: true }).click();
  await page.getByLabel(t.en('login.credentials.password'), { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: t.en('login.credentials.submit'), exact: true }).click();
}

/**
 * The authenticator's time step now (RFC 6238, 30 s), on the server's clock: a phone's clock
 * agrees with the server's, and one test moves the server's clock forward.
 */
const currentStep = () => Math.floor(h.server.ctx.now().getTime() / 1000 / PERIOD_SECONDS);

/**
 * A code no earlier sign-in used: each code is accepted once, so when `usedStep` is still the
 * current step, the next one is taken, as a person waits for the app's next code. The server's
 * clock is moved on to that step rather than waited for (up to 30 s each time).
 */
async function freshCode(secret: string, usedStep: number): Promise<{ code: string; step: number }> {
  const nextStepAt = (usedStep + 1) * PERIOD_SECONDS * 1000;
  if (currentStep() <= usedStep) h.server.ctx.advance(nextStepAt - h.server.ctx.now().getTime());
  const step = currentStep();
  return { code: await generate({ secret, epoch: step * PERIOD_SECONDS }), step };
}

/** A six-digit code that is not the current one (nor the steps either side of it). */
async function wrongCode(secret: string): Promise<string> {
  const step = currentStep();
  const valid = await Promise.all([-1, 0, 1].map((d) => generate({ secret, epoch: (step + d) * PERIOD_SECONDS })));
  let code = '000000';
  for (let n = 0; valid.includes(code); n += 1) code = String(n).padStart(6, '0');
  return code;
}

const codeField = (page: Page) => page.getByLabel(t.en('profile.totp.code'), { exact: true });
const activateButton = (page: Page) => page.getByRole('button', { name: t.en('profile.totp.activate'), exact: true });
const tfaSwitch = (page: Page) => page.getByRole('switch', { name: t.en('profile.tfa.switch'), exact: true });

/**
 * On the setup page (signed in): reads the key the page shows, checks the refusals, activates with
 * a valid code and lands on the profile with two-factor on. Returns the key and the step it used.
 */
async function enrol(page: Page): Promise<{ secret: string; usedStep: number }> {
  await page.goto(SETUP_PATH);
  await page.getByRole('heading', { name: t.en('profile.totp_title'), exact: true }).waitFor();

  const keyGroup = page.getByRole('group', { name: t.en('profile.totp.secret_label'), exact: true });
  const shown = (await keyGroup.locator('code').innerText()).trim();
  expect(shown, 'the key is shown in blocks of four').toMatch(/^[A-Z2-7]{4}( [A-Z2-7]{1,4})+$/);
  const secret = shown.replace(/\s+/g, '');
  expect(secret.length).toBeGreaterThanOrEqual(16);

  const qr = page.getByRole('img', { name: t.en('profile.totp.qr_alt'), exact: true });
  await qr.waitFor();
  await expect.poll(() => qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0), { message: 'the QR image loads' }).toBe(true);
  await h.shot('totp-setup', page);

  // An empty submit is refused in the page.
  await activateButton(page).click();
  expect(await alertText(page)).toBe(t.en('errors.totp_code_required'));

  // A wrong code is refused by the server; the field is emptied for the next try.
  await codeField(page).fill(await wrongCode(secret));
  await activateButton(page).click();
  await page.getByRole('alert').filter({ hasText: t.en('errors.invalid_code') }).waitFor();
  expect(await codeField(page).inputValue()).toBe('');

  const { code, step } = await freshCode(secret, -1);
  await codeField(page).fill(code);
  await activateButton(page).click();

  await page.waitForURL((url) => url.pathname === '/profile');
  await page.getByText(t.en('profile.tfa.activated'), { exact: true }).waitFor();
  await tfaSwitch(page).waitFor();
  expect(await tfaSwitch(page).isChecked()).toBe(true);
  await page.getByRole('link', { name: t.en('profile.tfa.reregister'), exact: true }).waitFor();
  return { secret, usedStep: step };
}

/**
 * A second browser (no cookies) signs in with the password and must get the MFA step; then `steps`
 * runs there. On failure its page is saved too (the harness saves only the first browser's).
 */
async function inSecondBrowser(email: string, name: string, steps: (page: Page) => Promise<void>) {
  const context = await h.browser.newContext({ baseURL: h.base, locale: 'en-US', viewport: { width: 1024, height: 800 } });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  try {
    await signInWithPassword(page, email);
    await page.getByRole('heading', { name: t.en('login.mfa.title'), exact: true }).waitFor();
    await steps(page);
  } catch (error) {
    const path = await h.shot(`failed-second-browser-${name}`, page).catch(() => null);
    if (path) console.error(`screenshot of the second browser: ${path} (page ${page.url()})`);
    throw error;
  } finally {
    await context.close();
  }
}

describe('two-factor authentication with an authenticator app', () => {
  it(
    'is turned on from the setup page, and the next sign-in asks for a code',
    async () => {
      const { page } = h;
      const { email, tenant } = await personWithTenant('tove');
      await signInWithPassword(page, email);
      await expectTenantCard(page, tenant);

      const { secret, usedStep } = await enrol(page);
      await h.shot('profile-two-factor-on');

      // Re-register replaces the second factor, so it needs a session that proved one: this one
      // did, with a code of the app it just turned on, so the setup opens at once, warning that
      // the old app will stop working. (A session that proved no second factor is sent to sign in
      // again first: the remembered-browser test below.)
      await page.getByRole('link', { name: t.en('profile.tfa.reregister'), exact: true }).click();
      await page.waitForURL((url) => url.pathname === SETUP_PATH);
      await page.getByText(t.en('profile.totp.reregister_warning'), { exact: true }).waitFor();
      // … in Swedish too, from the flag selector.
      await page.getByRole('group', { name: t.en('language.label') }).getByRole('button', { name: t.en('language.sv') }).click();
      await page.getByRole('heading', { name: t.sv('profile.totp_title'), exact: true }).waitFor();
      await page.getByText(t.sv('profile.totp.reregister_warning'), { exact: true }).waitFor();
      await page.getByLabel(t.sv('profile.totp.code'), { exact: true }).waitFor();
      await h.shot('totp-reregister-sv');

      await inSecondBrowser(email, 'mfa', async (other) => {
        await h.shot('mfa-step', other);
        const { code } = await freshCode(secret, usedStep);
        await other.getByLabel(t.en('login.mfa.code'), { exact: true }).fill(code);
        await other.getByRole('button', { name: t.en('login.mfa.submit'), exact: true }).click();
        await expectTenantCard(other, tenant);
      });
    },
    JOURNEY_TIMEOUT_MS,
  );

  it(
    'sends the person to sign in with a second factor when the account gained one while the setup page was open',
    async () => {
      const { page } = h;
      const { email, tenant } = await personWithTenant('gained');
      await signInWithPassword(page, email);
      await expectTenantCard(page, tenant);
      await page.goto(SETUP_PATH);
      const keyGroup = page.getByRole('group', { name: t.en('profile.totp.secret_label'), exact: true });
      const secret = (await keyGroup.locator('code').innerText()).replace(/\s+/g, '');

      // Another tab adds a passkey meanwhile: activating now needs a sign-in that proved a factor.
      const { id } = await h.server.ctx.db('accounts').where({ email }).first('id');
      await h.server.ctx.db('credentials').insert({ account_id: id, type: 'webauthn', subject: `gained-${id}`, public_key: Buffer.alloc(32, 1) });
      await codeField(page).fill((await freshCode(secret, -1)).code);
      await activateButton(page).click();

      await page.getByText(t.en('profile.reauth.second_factor_body'), { exact: true }).waitFor();
      const link = page.getByRole('link', { name: t.en('profile.reauth.link'), exact: true });
      expect(new URL((await link.getAttribute('href'))!, h.base).searchParams.get('second_factor')).toBe('1');
    },
    JOURNEY_TIMEOUT_MS,
  );

  it(
    'lists a remembered browser on the profile, forgets it, and turns two-factor off',
    async () => {
      const { page } = h;
      const { email, tenant } = await personWithTenant('ulf');
      await signInWithPassword(page, email);
      await expectTenantCard(page, tenant);
      const { secret, usedStep } = await enrol(page);

      await inSecondBrowser(email, 'devices', async (other) => {
        const { code } = await freshCode(secret, usedStep);
        await other.getByLabel(t.en('login.mfa.code'), { exact: true }).fill(code);
        await other.getByLabel(t.en('login.mfa.remember'), { exact: true }).check();
        await other.getByRole('button', { name: t.en('login.mfa.submit'), exact: true }).click();
        await expectTenantCard(other, tenant);

        await other.goto('/profile');
        const devices = other.getByRole('region', { name: t.en('profile.devices.title'), exact: true });
        const item = devices.getByRole('listitem');
        await item.waitFor();
        expect(await item.count()).toBe(1);
        const text = await item.innerText();
        expect(text).toContain(t.en('profile.devices.name', { browser: 'Chrome', os: 'Linux' }));
        expect(text).toContain(t.en('profile.devices.current'));
        expect(text).toContain(t.en('profile.devices.last_used', { when: t.en('time.today') }));
        await h.shot('profile-remembered-device', other);

        await item.getByRole('button', { name: new RegExp(`^${t.en('profile.devices.forget')}\\b`) }).click();
        await devices.getByText(t.en('profile.devices.forgotten'), { exact: true }).waitFor();
        await devices.getByText(t.en('profile.devices.empty'), { exact: true }).waitFor();
        expect(await devices.getByRole('listitem').count()).toBe(0);

        // Turning the switch off asks first; Escape keeps it on.
        await tfaSwitch(other).click();
        await other.getByRole('group', { name: t.en('profile.tfa.confirm_title'), exact: true }).waitFor();
        await other.keyboard.press('Escape');
        expect(await other.getByRole('group', { name: t.en('profile.tfa.confirm_title'), exact: true }).count()).toBe(0);
        expect(await tfaSwitch(other).isChecked()).toBe(true);

        // This browser signed in a moment ago, so no second sign-in is needed to turn it off.
        await tfaSwitch(other).click();
        await other.getByRole('button', { name: t.en('profile.tfa.confirm'), exact: true }).click();
        await other.getByText(t.en('success.credential_deleted'), { exact: true }).waitFor();
        await expect.poll(() => tfaSwitch(other).isChecked()).toBe(false);
        expect(await other.getByRole('link', { name: t.en('profile.tfa.reregister'), exact: true }).count()).toBe(0);
        await h.shot('profile-two-factor-off', other);
      });
    },
    JOURNEY_TIMEOUT_MS,
  );

  it(
    'the setup page sends a sign-in older than five minutes through /login and back to the setup',
    async () => {
      const { page } = h;
      const { email, tenant } = await personWithTenant('wilma');
      await signInWithPassword(page, email);
      await expectTenantCard(page, tenant);

      // Six minutes later (server clock) the same session opens the setup page.
      h.server.ctx.advance(6 * 60_000);
      await page.goto(SETUP_PATH);
      await page.getByRole('alert').filter({ hasText: t.en('profile.reauth.body') }).waitFor();
      expect(await page.getByText(t.en('profile.totp.setup_failed'), { exact: true }).count()).toBe(0);
      await h.shot('totp-setup-reauth', page);

      await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.get('email') === email && url.searchParams.get('return_to') === SETUP_PATH);
      await page.getByLabel(t.en('login.credentials.password'), { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: t.en('login.credentials.submit'), exact: true }).click();
      await page.waitForURL((url) => url.pathname === SETUP_PATH);
      await page.getByRole('group', { name: t.en('profile.totp.secret_label'), exact: true }).locator('code').waitFor();
      await codeField(page).waitFor();
    },
    JOURNEY_TIMEOUT_MS,
  );

  it(
    'a sign-in older than five minutes must sign in again before two-factor is turned off',
    async () => {
      const { page } = h;
      const { email, tenant } = await personWithTenant('vera');
      await signInWithPassword(page, email);
      await expectTenantCard(page, tenant);
      const { secret, usedStep } = await enrol(page);

      // Six minutes later (server clock) the same session tries to turn two-factor off.
      h.server.ctx.advance(6 * 60_000);
      await tfaSwitch(page).click();
      await page.getByRole('button', { name: t.en('profile.tfa.confirm'), exact: true }).click();
      await page.getByRole('alert').filter({ hasText: t.en('profile.reauth.body') }).waitFor();
      await h.shot('profile-reauth', page);

      // The page sends the person to /login with their email, which starts at the password step.
      await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.get('email') === email);
      await page.getByText(t.en('login.signed_in_as', { email }), { exact: true }).waitFor();
      await page.getByLabel(t.en('login.credentials.password'), { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: t.en('login.credentials.submit'), exact: true }).click();
      await page.getByRole('heading', { name: t.en('login.mfa.title'), exact: true }).waitFor();
      const { code } = await freshCode(secret, usedStep);
      await page.getByLabel(t.en('login.mfa.code'), { exact: true }).fill(code);
      await page.getByRole('button', { name: t.en('login.mfa.submit'), exact: true }).click();
      // The sign-in round trip returns to the profile.
      await page.waitForURL((url) => url.pathname === '/profile');

      // Signed in afresh, the change goes through.
      await tfaSwitch(page).click();
      await page.getByRole('button', { name: t.en('profile.tfa.confirm'), exact: true }).click();
      await page.getByText(t.en('success.credential_deleted'), { exact: true }).waitFor();
      await expect.poll(() => tfaSwitch(page).isChecked()).toBe(false);
    },
    JOURNEY_TIMEOUT_MS,
  );

  it(
    'a sign-in that skipped the code on a remembered browser turns two-factor off only after the code, asked again',
    async () => {
      const { page } = h;
      const { email, tenant } = await personWithTenant('yngve');
      await signInWithPassword(page, email);
      await expectTenantCard(page, tenant);
      const { secret, usedStep } = await enrol(page);

      // Signed in again with the code, this browser remembered; then once more, by the password alone.
      await page.context().clearCookies({ name: 'nyckel_session' });
      await signInWithPassword(page, email);
      h.server.ctx.advance(PERIOD_SECONDS * 1000);
      const first = await freshCode(secret, usedStep);
      await page.getByLabel(t.en('login.mfa.code'), { exact: true }).fill(first.code);
      await page.getByLabel(t.en('login.mfa.remember'), { exact: true }).check();
      await page.getByRole('button', { name: t.en('login.mfa.submit'), exact: true }).click();
      await expectTenantCard(page, tenant);
      await page.context().clearCookies({ name: 'nyckel_session' });
      await signInWithPassword(page, email);
      await expectTenantCard(page, tenant);

      // Not an operator, yet the password alone does not turn two-factor off; the notice says what does.
      await page.goto('/profile');
      await tfaSwitch(page).click();
      await page.getByRole('button', { name: t.en('profile.tfa.confirm'), exact: true }).click();
      const notice = page.getByRole('alert').filter({ hasText: t.en('profile.reauth.second_factor_body') });
      await notice.waitFor();
      expect(await notice.innerText()).not.toMatch(/operator/i);
      expect(await tfaSwitch(page).isChecked()).toBe(true);
      await h.shot('profile-second-factor-reauth', page);

      // From the keyboard to /login?second_factor=1, which asks for the code though the browser is remembered.
      await notice.getByRole('link', { name: t.en('profile.reauth.link'), exact: true }).focus();
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.get('second_factor') === '1' && url.searchParams.get('return_to') === '/profile');
      await page.getByText(t.en('login.credentials.second_factor'), { exact: true }).waitFor();
      await page.getByLabel(t.en('login.credentials.password'), { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: t.en('login.credentials.submit'), exact: true }).click();
      await page.getByRole('heading', { name: t.en('login.mfa.title'), exact: true }).waitFor();
      h.server.ctx.advance(PERIOD_SECONDS * 1000);
      const { code } = await freshCode(secret, first.step);
      await page.getByLabel(t.en('login.mfa.code'), { exact: true }).fill(code);
      await page.getByRole('button', { name: t.en('login.mfa.submit'), exact: true }).click();
      await page.waitForURL((url) => url.pathname === '/profile');

      await tfaSwitch(page).click();
      await page.getByRole('button', { name: t.en('profile.tfa.confirm'), exact: true }).click();
      await page.getByText(t.en('success.credential_deleted'), { exact: true }).waitFor();
      await expect.poll(() => tfaSwitch(page).isChecked()).toBe(false);
    },
    JOURNEY_TIMEOUT_MS,
  );
});
