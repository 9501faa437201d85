import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knownBrowserDays } from '../../src/login/known-browser.ts';
import { lockoutPolicy } from '../../src/login/lockout.ts';
import { createResetLink } from '../../src/login/reset.service.ts';
import { limitRules } from '../../src/http/rate-limit.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount } from './fixtures.ts';
import { errorType, setCookies, signInWithPassword, start, startWithCode, type Browser } from './journey.ts';

let t: TestApp;

/** An app of the block's own: its tests share one IP budget (300 calls from 127.0.0.1). */
function useApp(): void {
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });
}

const password = 'Correct-Horse-9';

async function wrongPassword(browser: Browser, email: string) {
  const started = await start(browser, email);
  if (started.status !== 200) return started;
  return browser.post('/auth/login/verify-password').send({ session_id: started.body.session_id, email, password: 'Wrong-Horse-9' });
}

/** A stranger's browser tries wrong passwords until the address is locked. */
async function lockFromElsewhere(email: string): Promise<void> {
  const stranger = t.agent();
  for (let i = 1; i <= lockoutPolicy.maxFailures; i += 1) {
    const res = await wrongPassword(stranger, email);
    expect(res.status).toBe(i < lockoutPolicy.maxFailures ? 401 : 423);
  }
  expect(errorType(await start(t.agent(), email))).toBe('account_locked');
}

/** The owner's browser, having signed in once: it carries `nyckel_known`. */
async function knownBrowserOf(email: string): Promise<Browser> {
  const owner = t.agent();
  const done = await signInWithPassword(owner, email, password);
  expect(done.body.state).toBe('Done');
  return owner;
}

const valueOf = (line: string) => line.slice('nyckel_known='.length, line.indexOf(';'));

/** A start from a browser whose only cookie is this `nyckel_known` value. */
function startCarrying(known: string, email: string) {
  return t.agent().post('/auth/login/start').set('Cookie', `nyckel_known=${known}`).send({ email });
}

describe('a browser that signed in to an address before (nyckel_known)', () => {
  useApp();

  it('is given an HttpOnly cookie at every sign-in, a new one each time', async () => {
    const account = await createAccount(t.ctx.db, { password });
    const browser = t.agent();
    const first = setCookies(await signInWithPassword(browser, account.email, password)).get('nyckel_known');
    const second = setCookies(await signInWithPassword(browser, account.email, password)).get('nyckel_known');
    for (const line of [first, second]) {
      expect(line).toMatch(/HttpOnly/);
      expect(line).toMatch(/SameSite=Lax/);
      expect(line).toMatch(/Path=\/;/);
      expect(line).toMatch(/Max-Age=15552000/);
      expect(line).not.toContain(encodeURIComponent(account.email));
    }
    expect(first).not.toBe(second);
  });

  it('goes on signing in while failures from elsewhere keep the address locked, and its sign-in leaves that lock in place', async () => {
    const account = await createAccount(t.ctx.db, { password });
    const owner = await knownBrowserOf(account.email);
    await lockFromElsewhere(account.email);
    const lockedUntil = (await t.ctx.db('accounts').where({ id: account.id }).first('locked_until')).locked_until;
    expect(lockedUntil).not.toBeNull();

    const again = await signInWithPassword(owner, account.email, password);
    expect(again.status).toBe(200);
    expect(again.body.state).toBe('Done');
    const succeeded = await t.ctx.db('audit_events').where({ target_account_id: account.id, action: 'login.succeeded' }).orderBy('id').pluck('details');
    expect(succeeded.map((details: { known_browser?: boolean }) => details.known_browser ?? false)).toEqual([false, true]);

    // The stranger's run is not restarted by the owner's sign-in: the address stays locked to them.
    expect(errorType(await start(t.agent(), account.email))).toBe('account_locked');
    expect((await t.ctx.db('accounts').where({ id: account.id }).first('locked_until')).locked_until).toEqual(lockedUntil);
  });

  it('changes its password from the profile while failures from elsewhere keep the address locked', async () => {
    // Stored as typed, capitals and all: the portal session's address is this spelling.
    const account = await createAccount(t.ctx.db, { password, email: `Known.Owner-${Date.now()}@Example.COM` });
    const owner = await knownBrowserOf(account.email);
    await lockFromElsewhere(account.email);
    const changed = await owner.post('/api/accounts/password').send({ current_password: password, new_password: 'Brand-New-Secret-42' });
    expect([changed.status, changed.body]).toEqual([200, { signed_out: 0 }]);
  });

  it('counts its own failures apart from the address: they lock no one, and after the limit it counts with everyone else', async () => {
    const account = await createAccount(t.ctx.db, { password });
    const owner = await knownBrowserOf(account.email);
    for (let i = 1; i <= lockoutPolicy.maxFailures; i += 1) {
      const res = await wrongPassword(owner, account.email);
      expect(res.status).toBe(401);
      expect(errorType(res)).toBe('invalid_credentials');
    }
    // Ten failures from the known browser: the address is not locked for anyone.
    expect((await start(t.agent(), account.email)).status).toBe(200);
    const failed = await t.ctx.db('audit_events').where({ target_account_id: account.id, action: 'login.failed' }).pluck('details');
    expect(failed).toHaveLength(lockoutPolicy.maxFailures);
    for (const details of failed) expect(details).toMatchObject({ method: 'password', reason: 'invalid_credentials', known_browser: true });
    // But the browser has lost its standing: the address's lock now holds it too.
    await lockFromElsewhere(account.email);
    expect(errorType(await start(owner, account.email))).toBe('account_locked');
  });

  it('loses its standing when a password reset signs the address out everywhere (a stolen laptop keeps no head start)', async () => {
    const account = await createAccount(t.ctx.db, { password });
    const laptop = await knownBrowserOf(account.email);
    const { link } = await createResetLink(t.ctx, account.id);
    expect((await t.agent().post('/auth/reset/confirm').send({ token: link.split('/').pop(), password: 'Brand-New-Secret-42' })).status).toBe(200);
    await lockFromElsewhere(account.email);
    expect(errorType(await start(laptop, account.email))).toBe('account_locked');
  });

  it('counts for the address it signed in to only, and not at all when its cookie is altered', async () => {
    const locked = await createAccount(t.ctx.db, { password });
    const other = await createAccount(t.ctx.db, { password });
    const value = valueOf(setCookies(await signInWithPassword(t.agent(), other.email, password)).get('nyckel_known')!);
    await lockFromElsewhere(locked.email);

    expect(errorType(await startCarrying(value, locked.email))).toBe('account_locked');

    const genuine = valueOf(setCookies(await signInWithPassword(t.agent(), other.email, password)).get('nyckel_known')!);
    await lockFromElsewhere(other.email);
    expect((await startCarrying(genuine, other.email)).status).toBe(200);
    const altered = genuine.slice(0, -2) + (genuine.endsWith('AA') ? 'BB' : 'AA');
    expect(errorType(await startCarrying(altered, other.email))).toBe('account_locked');
    // A later issue time, to outlive the 180 days, breaks the MAC too.
    const [nonce, issued, mac] = genuine.split('.');
    const later = (parseInt(issued!, 36) + 86_400_000).toString(36);
    expect(errorType(await startCarrying(`${nonce}.${later}.${mac}`, other.email))).toBe('account_locked');
  });

  // Last in its block: it moves the app's clock half a year on.
  it('loses its standing 180 days after its cookie was issued, whatever the browser keeps', async () => {
    const account = await createAccount(t.ctx.db, { password });
    const owner = await knownBrowserOf(account.email);
    t.ctx.advance((knownBrowserDays - 1) * 86_400_000);
    await lockFromElsewhere(account.email);
    expect((await start(owner, account.email)).status).toBe(200);
    t.ctx.advance(86_400_000);
    await lockFromElsewhere(account.email);
    expect(errorType(await start(owner, account.email))).toBe('account_locked');
  });
});

describe('a known browser’s budgets of its own', () => {
  useApp();

  it('checks parallel wrong current passwords in the profile no more often than its limit and the address’s allow', async () => {
    const account = await createAccount(t.ctx.db, { password });
    const owner = await knownBrowserOf(account.email);
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => owner.post('/api/accounts/password').send({ current_password: 'Wrong-Horse-9', new_password: 'Brand-New-Secret-42' })),
    );
    const checked = answers.filter((res) => errorType(res) === 'password/current-invalid').length;
    const failed = await t.ctx.db('audit_events').where({ target_account_id: account.id, action: 'login.failed' }).count({ n: '*' });
    // The browser's 10, then the address's 10 (the last of which locks): never more.
    expect(Number(failed[0]!.n)).toBeLessThanOrEqual(2 * lockoutPolicy.maxFailures);
    expect(checked).toBeLessThanOrEqual(2 * lockoutPolicy.maxFailures);
    expect(answers.every((res) => [403, 423, 429].includes(res.status))).toBe(true);
  });

  it('is its own per-address budget: spending the address’s budget elsewhere does not stop it', async () => {
    const account = await createAccount(t.ctx.db, { password });
    const owner = await knownBrowserOf(account.email);
    const stranger = t.agent();
    let refused = 0;
    for (let i = 0; i <= limitRules.email.points; i += 1) {
      if ((await start(stranger, account.email)).status === 429) refused += 1;
    }
    expect(refused).toBeGreaterThan(0);
    const done = await signInWithPassword(owner, account.email, password);
    expect(done.body.state).toBe('Done');
  });

  it('has mails of its own: spending the address’s mail budget elsewhere does not stop its reset request', async () => {
    const account = await createAccount(t.ctx.db, { password });
    const owner = await knownBrowserOf(account.email);
    const reset = (browser: Browser) => browser.post('/auth/reset/request').send({ email: account.email });
    const stranger = t.agent();
    for (let i = 0; i < limitRules.mail.points; i += 1) expect((await reset(stranger)).status).toBe(200);
    expect(errorType(await reset(stranger))).toBe('too_many_requests');

    expect((await reset(owner)).status).toBe(200);
    await expect.poll(() => t.mail.to(account.email).length).toBe(limitRules.mail.points + 1);
  });

  it('gets its emailed code when the address’s mail budget is spent elsewhere (an account without a password)', async () => {
    const account = await createAccount(t.ctx.db);
    const owner = t.agent();
    const { sessionId, code } = await startWithCode(owner, t.mail, account.email);
    const verified = await owner.post('/auth/login/verify-otp').send({ session_id: sessionId, email: account.email, otp: code });
    expect(verified.body.state).toBe('AskedCreateCredential');
    expect((await owner.post('/auth/login/skip-create-password').send({ session_id: sessionId })).body.state).toBe('Done');

    // The owner's first sign-in took one of the address's mails; the stranger takes the rest.
    const stranger = t.agent();
    for (let i = 1; i < limitRules.mail.points; i += 1) expect((await start(stranger, account.email)).status).toBe(200);
    expect(errorType(await start(stranger, account.email))).toBe('too_many_requests');
    const again = await startWithCode(owner, t.mail, account.email);
    expect(again.code).toMatch(/^\d{6}$/);
  });
});
