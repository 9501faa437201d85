import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type request from 'supertest';
import { lockoutPolicy, recordFailure } from '../../src/login/lockout.ts';
import { settleSecurityNotices } from '../../src/profile/security-notice.ts';
import { StoreUnavailableError } from '../../src/store/store.ts';
import { createPersona, errorType, password, sessionBrowser, signIn, startAdminApp, type AdminTestApp, type Persona } from './harness.ts';

let t: AdminTestApp;
let support: request.Agent;
let supportPersona: Persona;
let admin: request.Agent;
let adminPersona: Persona;

beforeAll(async () => {
  t = await startAdminApp();
  supportPersona = await createPersona(t.ctx, { role: 'support', totp: true, name: 'Sara Support' });
  support = await signIn(t, supportPersona);
  adminPersona = await createPersona(t.ctx, { role: 'admin', totp: true, name: 'Ada Admin' });
  admin = await signIn(t, adminPersona);
});
afterAll(async () => {
  await t?.close();
});

/** A person with a password, under an address no other test searches for. */
const person = (name: string) => createPersona(t.ctx, { name, email: `${name.toLowerCase().replace(' ', '.')}-${randomBytes(3).toString('hex')}@unlock.test` });

/** Wrong passwords through the login API, as a guesser sends them; answers each status and error type. */
async function wrongPasswords(persona: Persona, count: number): Promise<[number, string | undefined][]> {
  const browser = t.agent();
  const started = await browser.post('/auth/login/start').send({ email: persona.email });
  expect(started.body.state).toBe('CredentialsRequired');
  const answers: [number, string | undefined][] = [];
  for (let i = 0; i < count; i += 1) {
    const res = await browser.post('/auth/login/verify-password').send({ session_id: started.body.session_id, email: persona.email, password: 'Wrong-Pass-1' });
    answers.push([res.status, errorType(res)]);
  }
  return answers;
}

/** Ten wrong passwords: nine refused, the tenth locks the address (423). */
async function lockOut(persona: Persona): Promise<void> {
  const answers = await wrongPasswords(persona, 10);
  expect(answers.slice(0, 9)).toEqual(Array(9).fill([401, 'invalid_credentials']));
  expect(answers[9]).toEqual([423, 'account_locked']);
}

/**
 * The run past its cap: 100 failures in a row (lockoutPolicy.maxConsecutiveFailures), counted as the
 * login API counts them, lock the address for 30 days. Only the last lock is checked here.
 */
async function failHundredInARow(persona: Persona): Promise<void> {
  const meta = { accountId: persona.id, method: 'password', reason: 'invalid_credentials', ip: null, userAgent: null };
  for (let i = 1; i < lockoutPolicy.maxConsecutiveFailures; i += 1) await recordFailure(t.ctx, persona.email, meta).catch(() => {});
  await expect(recordFailure(t.ctx, persona.email, meta)).rejects.toMatchObject({ type: 'account_locked' });
}

/** What the first step of a sign-in answers: `account_locked` while the address is locked. */
const startsSignIn = async (persona: Persona) => {
  const res = await t.agent().post('/auth/login/start').send({ email: persona.email });
  return res.status === 200 ? res.body.state : errorType(res);
};

const listed = async (persona: Persona) => {
  const res = await support.get(`/api/accounts/search/${encodeURIComponent(persona.email)}`);
  expect(res.status).toBe(200);
  expect(res.body).toHaveLength(1);
  return res.body[0] as { id: string; locked_until: string | null };
};

const unlocks = (persona: Persona) => t.ctx.db('audit_events').where({ action: 'operator.account.unlocked', target_account_id: persona.id });

describe('a sign-in lock in the console', () => {
  it('is listed with its end; support ends it, audited, and the right password then signs in', async () => {
    const lena = await person('Lena Locked');
    const before = t.ctx.now().getTime();
    await lockOut(lena);
    expect(await startsSignIn(lena)).toBe('account_locked');

    const row = await listed(lena);
    expect(row.id).toBe(lena.id);
    const mirror = (await t.ctx.db('accounts').where({ id: lena.id }).first('locked_until')) as { locked_until: Date };
    expect(row.locked_until).toBe(mirror.locked_until.toISOString());
    // The first lock lasts 15 minutes.
    expect(Date.parse(row.locked_until!) - before).toBeGreaterThanOrEqual(15 * 60 * 1000);
    expect(Date.parse(row.locked_until!) - before).toBeLessThan(16 * 60 * 1000);
    const all = await support.get('/api/accounts/');
    expect(all.body.find((account: { id: string }) => account.id === lena.id)).toMatchObject({ locked_until: row.locked_until });

    const res = await support.post(`/api/accounts/${lena.id}/unlock`);
    expect([res.status, res.body]).toEqual([200, { status: 'unlocked' }]);

    expect((await listed(lena)).locked_until).toBeNull();
    expect(await t.ctx.db('accounts').where({ id: lena.id }).first('locked_until')).toEqual({ locked_until: null });
    const audit = await unlocks(lena);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor_id: supportPersona.id, details: { role: 'support', locked_until: row.locked_until } });
    await signIn(t, lena);
  });

  it("starts the 15-minute window's count afresh, so the next lock needs ten new failures", async () => {
    const nils = await person('Nils Nearly');
    await lockOut(nils);
    expect((await support.post(`/api/accounts/${nils.id}/unlock`)).status).toBe(200);
    expect(await wrongPasswords(nils, 9)).toEqual(Array(9).fill([401, 'invalid_credentials']));
    expect(await startsSignIn(nils)).toBe('CredentialsRequired');
    // The tenth since the unlock locks again.
    expect(await wrongPasswords(nils, 1)).toEqual([[423, 'account_locked']]);
  });

  it('past the cap of 100 failures in a row, ends the lock but not the run: one more wrong password locks for 30 days again', async () => {
    const cora = await person('Cora Capped');
    await failHundredInARow(cora);
    expect(await startsSignIn(cora)).toBe('account_locked');
    expect((await support.post(`/api/accounts/${cora.id}/unlock`)).status).toBe(200);
    expect(await startsSignIn(cora)).toBe('CredentialsRequired');
    expect((await listed(cora)).locked_until).toBeNull();

    // Else "unlock, nine guesses, unlock..." would have no cap: the password is the same one.
    const browser = t.agent();
    const started = await browser.post('/auth/login/start').send({ email: cora.email });
    const res = await browser.post('/auth/login/verify-password').send({ session_id: started.body.session_id, email: cora.email, password: 'Wrong-Pass-1' });
    expect([res.status, errorType(res)]).toEqual([423, 'account_locked']);
    const thirtyDays = lockoutPolicy.consecutiveWindowSeconds;
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(thirtyDays - 60);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(thirtyDays);
    expect(Date.parse((await listed(cora)).locked_until!) - t.ctx.now().getTime()).toBeGreaterThan((thirtyDays - 60) * 1000);
  });

  it('past the cap, the right password right after the unlock signs in, and that sign-in starts the run afresh', async () => {
    const rita = await person('Rita Rightaway');
    await failHundredInARow(rita);
    expect((await support.post(`/api/accounts/${rita.id}/unlock`)).status).toBe(200);
    await signIn(t, rita);
    expect(await wrongPasswords(rita, 1)).toEqual([[401, 'invalid_credentials']]);
  });

  it('of an account that is not locked is refused (409 account/not-locked): nothing recorded or mailed, and its count of failures goes on', async () => {
    const olle = await person('Olle Open');
    expect(await wrongPasswords(olle, 5)).toEqual(Array(5).fill([401, 'invalid_credentials']));
    for (let i = 0; i < 6; i += 1) {
      const res = await support.post(`/api/accounts/${olle.id}/unlock`);
      expect([res.status, errorType(res)]).toEqual([409, 'account/not-locked']);
    }
    expect(await unlocks(olle)).toHaveLength(0);
    await settleSecurityNotices();
    expect(t.mail.to(olle.email)).toEqual([]);
    // The refusals restarted nothing: the tenth failure in the window locks, as it would have.
    expect(await wrongPasswords(olle, 5)).toEqual([...Array(4).fill([401, 'invalid_credentials']), [423, 'account_locked']]);
    // Locked now: the unlock goes through (the refusals spent nothing of the account's budget), and is mailed.
    expect((await support.post(`/api/accounts/${olle.id}/unlock`)).status).toBe(200);
    await t.mail.waitFor(olle.email);
    await signIn(t, olle);
  });

  it('of a lock that ran out since the console showed it is refused (409), and records nothing', async () => {
    const elsa = await person('Elsa Ended');
    // The mirror the console read, with an end just passed: the lock itself is long gone.
    await t.ctx.db('accounts').where({ id: elsa.id }).update({ locked_until: new Date(t.ctx.now().getTime() - 1000) });
    const res = await support.post(`/api/accounts/${elsa.id}/unlock`);
    expect([res.status, res.body]).toEqual([409, { detail: [{ type: 'account/not-locked', msg: 'The account is not locked: its lock has ended, or it was never locked' }] }]);
    expect(await unlocks(elsa)).toHaveLength(0);
    expect((await listed(elsa)).locked_until).toBeNull();
  });

  it('404 for an unknown account, 422 for a malformed id', async () => {
    const unknown = await support.post('/api/accounts/0b0e8f8e-8d8a-4c4b-9d6e-111111111111/unlock');
    expect([unknown.status, unknown.body]).toEqual([404, { detail: [{ type: 'not_found', msg: 'Not found' }] }]);
    const malformed = await support.post('/api/accounts/not-a-uuid/unlock');
    expect([malformed.status, errorType(malformed)]).toEqual([422, 'validation_error']);
  });

  it('is refused to anyone but a signed-in operator with a second factor, from our own origin; the lock stays', async () => {
    const karin = await person('Karin Kept');
    await lockOut(karin);
    const url = `/api/accounts/${karin.id}/unlock`;

    const anonymous = await t.agent().post(url);
    expect([anonymous.status, errorType(anonymous)]).toEqual([401, 'unauthorized']);
    const someone = await signIn(t, await person('Pelle Person'));
    const notOperator = await someone.post(url);
    expect([notOperator.status, errorType(notOperator)]).toEqual([403, 'forbidden']);
    const passwordOnly = await (await sessionBrowser(t, supportPersona, ['pwd'])).post(url);
    expect([passwordOnly.status, errorType(passwordOnly)]).toEqual([403, 'operator/mfa-required']);
    const crossSite = await support.post(url).set('Origin', 'https://evil.example');
    expect([crossSite.status, errorType(crossSite)]).toEqual([403, 'cross_site_request']);

    expect(await startsSignIn(karin)).toBe('account_locked');
    expect((await listed(karin)).locked_until).not.toBeNull();
    expect(await unlocks(karin)).toHaveLength(0);
  });

  it.each(['support', 'admin'] as const)('of an account with the %s role is refused to support (403, nothing changes); an admin ends it', async (role) => {
    const otto = await createPersona(t.ctx, { role, totp: true, name: 'Otto Operator', email: `otto-${randomBytes(3).toString('hex')}@unlock.test` });
    await lockOut(otto);

    const refused = await support.post(`/api/accounts/${otto.id}/unlock`);
    expect([refused.status, refused.body]).toEqual([403, { detail: [{ type: 'forbidden', msg: 'Not allowed' }] }]);
    expect(await startsSignIn(otto)).toBe('account_locked');
    expect((await listed(otto)).locked_until).not.toBeNull();
    expect(await unlocks(otto)).toHaveLength(0);

    expect((await admin.post(`/api/accounts/${otto.id}/unlock`)).status).toBe(200);
    expect(await startsSignIn(otto)).toBe('CredentialsRequired');
    expect((await listed(otto)).locked_until).toBeNull();
    expect(await unlocks(otto)).toEqual([expect.objectContaining({ actor_id: adminPersona.id, details: expect.objectContaining({ role: 'admin' }) })]);
  });

  it('a store that fails ends no lock, and the console still shows it to unlock again; the row records the try', async () => {
    const sten = await person('Sten Stored');
    await lockOut(sten);
    const found = (await listed(sten)).locked_until;
    const del = t.ctx.store.del.bind(t.ctx.store);
    // The store refuses just the lockout's keys, as an unreachable Redis would.
    const failing = vi.spyOn(t.ctx.store, 'del').mockImplementation(async (...keys: string[]) => {
      if (keys.some((key) => key.startsWith('lockout:'))) throw new StoreUnavailableError('store down (test)');
      return del(...keys);
    });
    try {
      const res = await support.post(`/api/accounts/${sten.id}/unlock`);
      expect([res.status, errorType(res)]).toEqual([503, 'service_unavailable']);
    } finally {
      failing.mockRestore();
    }
    expect(await startsSignIn(sten)).toBe('account_locked');
    expect((await listed(sten)).locked_until).toBe(found);
    expect(await unlocks(sten)).toHaveLength(1);

    expect((await support.post(`/api/accounts/${sten.id}/unlock`)).status).toBe(200);
    expect(await startsSignIn(sten)).toBe('CredentialsRequired');
    expect((await listed(sten)).locked_until).toBeNull();
    expect(await unlocks(sten)).toHaveLength(2);
  });

  it('a lock set while the unlock runs, by failures landing after the store ended the old one, stays listed', async () => {
    const rolf = await person('Rolf Raced');
    await lockOut(rolf);
    const found = (await listed(rolf)).locked_until;
    const del = t.ctx.store.del.bind(t.ctx.store);
    const meta = { accountId: rolf.id, method: 'password', reason: 'invalid_credentials', ip: null, userAgent: null };
    let raced = false;
    // Ten failures land just after the store's lock ended, before the mirror is cleared: a new lock.
    const racing = vi.spyOn(t.ctx.store, 'del').mockImplementation(async (...keys: string[]) => {
      await del(...keys);
      if (raced || !keys.some((key) => key.startsWith('lockout:'))) return;
      raced = true;
      for (let i = 0; i < lockoutPolicy.maxFailures; i += 1) await recordFailure(t.ctx, rolf.email, meta).catch(() => {});
    });
    try {
      expect((await support.post(`/api/accounts/${rolf.id}/unlock`)).status).toBe(200);
    } finally {
      racing.mockRestore();
    }
    expect(raced).toBe(true);
    expect(await startsSignIn(rolf)).toBe('account_locked');
    const shown = (await listed(rolf)).locked_until;
    expect(shown).not.toBeNull();
    expect(shown).not.toBe(found);
  });

  // Last: it moves the clock.
  it('a lock that has run out is not listed, though its mirror stays until a sign-in clears it', async () => {
    const rune = await person('Rune Runout');
    await lockOut(rune);
    t.ctx.advance(15 * 60 * 1000 + 1000);
    expect(await startsSignIn(rune)).toBe('CredentialsRequired');
    expect((await t.ctx.db('accounts').where({ id: rune.id }).first('locked_until')).locked_until).not.toBeNull();
    expect((await listed(rune)).locked_until).toBeNull();
  });
});
