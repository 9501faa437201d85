import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockedSeconds } from '../../src/login/lockout.ts';
import { listPortalSessions } from '../../src/session/portal-session.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { errorType, setCookies, signInWithPassword, start } from '../login/journey.ts';
import { createTotpAccount, password, signIn, type TotpAccountOptions } from '../totp/helpers.ts';
import { authenticatorFor, passkeyOptions, passkeySignIn, registerPasskey } from './helpers.ts';
import type { Bend, SoftAuthenticator } from './soft-authenticator.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** An account that registered a passkey from its profile (after a password + TOTP sign-in when enrolled). */
async function withPasskey(options: TotpAccountOptions = {}, bend: Bend = {}) {
  const account = await createTotpAccount(t.ctx, options);
  const authenticator = authenticatorFor(t);
  const browser = t.agent();
  await signIn(t.ctx, browser, account);
  const { res } = await registerPasskey(browser, authenticator, { bend });
  expect(res.status).toBe(201);
  return { account, authenticator, passkeyId: res.body.id as string };
}

const counterOf = async (id: string) => Number((await t.ctx.db('credentials').where({ id }).first('counter')).counter);
const backupOf = async (id: string) => {
  const { data } = await t.ctx.db('credentials').where({ id }).first('data');
  return { device_type: data.device_type, backed_up: data.backed_up };
};
const cloneAlarms = async (accountId: string) =>
  (await t.ctx.db('audit_events').where({ target_account_id: accountId, action: 'passkey.clone_suspected' }).orderBy('id').pluck('details')).map(
    (details: { signal: string; reason: string }) => [details.reason, details.signal],
  );
const failureReasons = async (accountId: string) =>
  (await t.ctx.db('audit_events').where({ target_account_id: accountId, action: 'login.failed' }).orderBy('id').pluck('details')).map(
    (details: { reason: string }) => details.reason,
  );

async function expectRefused(res: Awaited<ReturnType<typeof passkeySignIn>>, type = 'passkey/invalid') {
  expect([res.status, errorType(res)]).toEqual([401, type]);
  expect(setCookies(res).has('nyckel_session')).toBe(false);
}

describe('passkey sign-in: POST /auth/login/passkey/options and /verify', () => {
  it('a registered passkey signs in at once: Done with amr hwk and mfa, no TOTP step although TOTP is enrolled', async () => {
    const { account, authenticator, passkeyId } = await withPasskey({ totp: 1 });
    const browser = t.agent();
    const { sessionId, options } = await passkeyOptions(browser, account.email);
    expect(options.status).toBe(200);
    expect(options.body).toMatchObject({
      rpId: '127.0.0.1',
      userVerification: 'required',
      timeout: 120_000,
      allowCredentials: [{ id: authenticator.credentials[0]!.id, type: 'public-key', transports: ['internal'] }],
    });

    const response = authenticator.authenticate(options.body);
    const done = await browser.post('/auth/login/passkey/verify').send({ session_id: sessionId, response });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ state: 'Done', email: account.email, redirect_to: '/login/select-tenant' });
    expect(done.body.passkey).toBeUndefined();
    expect(setCookies(done).has('nyckel_session')).toBe(true);

    const sessions = await listPortalSessions(t.ctx, account.id);
    expect(sessions.map((s) => s.amr)).toContainEqual(['hwk', 'mfa']);
    const audit = await t.ctx.db('audit_events').where({ target_account_id: account.id, action: 'login.succeeded' }).orderBy('at', 'desc').first();
    expect(audit.details).toMatchObject({ method: 'webauthn', amr: ['hwk', 'mfa'] });
    expect(await counterOf(passkeyId)).toBe(1);
    expect((await t.ctx.db('credentials').where({ id: passkeyId }).first('last_used_at')).last_used_at).toBeInstanceOf(Date);
    expect((await browser.get('/auth/passkeys')).body.passkeys[0].last_used_at).toEqual(expect.any(String));
  });

  it('only accounts with a passkey are offered one', async () => {
    const account = await createTotpAccount(t.ctx, { totp: 0 });
    const browser = t.agent();
    const started = await start(browser, account.email);
    expect(started.body.state).toBe('CredentialsRequired');
    expect(started.body.passkey).toBeUndefined();
    const options = await browser.post('/auth/login/passkey/options').send({ session_id: started.body.session_id });
    expect([options.status, errorType(options)]).toEqual([409, 'passkey/none']);
  });

  it('takes each challenge once: the same answer again is passkey/challenge-expired', async () => {
    const { account, authenticator } = await withPasskey({ totp: 0 });
    const browser = t.agent();
    const { sessionId, options } = await passkeyOptions(browser, account.email);
    const response = authenticator.authenticate(options.body, undefined, { origin: 'https://evil.example' });
    await expectRefused(await browser.post('/auth/login/passkey/verify').send({ session_id: sessionId, response }));
    // The failed try used the challenge up: even a now-correct answer to it is refused.
    const honest = authenticator.authenticate(options.body);
    const again = await browser.post('/auth/login/passkey/verify').send({ session_id: sessionId, response: honest });
    expect([again.status, errorType(again)]).toEqual([410, 'passkey/challenge-expired']);
  });

  it('a captured answer replayed in a new sign-in (new challenge) is refused', async () => {
    const { account, authenticator } = await withPasskey({ totp: 0 });
    const victim = t.agent();
    const first = await passkeyOptions(victim, account.email);
    const captured = authenticator.authenticate(first.options.body);
    expect((await victim.post('/auth/login/passkey/verify').send({ session_id: first.sessionId, response: captured })).body.state).toBe('Done');

    const attacker = t.agent();
    const second = await passkeyOptions(attacker, account.email);
    await expectRefused(await attacker.post('/auth/login/passkey/verify').send({ session_id: second.sessionId, response: captured }));
  });

  it.each([
    ['another origin', { origin: 'https://evil.example' }],
    ['an origin on another port', { origin: 'http://127.0.0.1:3001' }],
    ['another RP ID', { rpId: 'evil.example' }],
    ['no user verification', { userVerified: false }],
    ['the registration type', { type: 'webauthn.create' }],
  ])('refuses an answer with %s (passkey/invalid), audited as a failed sign-in', async (_name, bend) => {
    const { account, authenticator, passkeyId } = await withPasskey({ totp: 0 });
    await expectRefused(await passkeySignIn(t.agent(), account.email, authenticator, undefined, bend));
    const failed = await t.ctx.db('audit_events').where({ target_account_id: account.id, action: 'login.failed' });
    expect(failed.map((f) => f.details)).toEqual([expect.objectContaining({ method: 'webauthn', reason: 'passkey/invalid' })]);
    expect(await counterOf(passkeyId)).toBe(0);
  });

  it('refuses a signature counter that does not move forward; one that keeps no counter (always 0) passes', async () => {
    const { account, authenticator, passkeyId } = await withPasskey({ totp: 0 });
    expect((await passkeySignIn(t.agent(), account.email, authenticator, undefined, { counter: 5 })).body.state).toBe('Done');
    expect(await counterOf(passkeyId)).toBe(5);
    await expectRefused(await passkeySignIn(t.agent(), account.email, authenticator, undefined, { counter: 3 }));
    await expectRefused(await passkeySignIn(t.agent(), account.email, authenticator, undefined, { counter: 5 }));
    await expectRefused(await passkeySignIn(t.agent(), account.email, authenticator, undefined, { counter: 0 }));
    expect(await counterOf(passkeyId)).toBe(5);
    // Signed by the key itself: another authenticator holds a copy. The answer stays the generic one.
    expect(await cloneAlarms(account.id)).toEqual(Array(3).fill(['passkey/clone-suspected', 'counter']));
    expect(await failureReasons(account.id)).toEqual(Array(3).fill('passkey/invalid'));
    expect((await passkeySignIn(t.agent(), account.email, authenticator, undefined, { counter: 6 })).body.state).toBe('Done');

    const counterless = await withPasskey({ totp: 0 });
    for (let i = 0; i < 2; i += 1) {
      const res = await passkeySignIn(t.agent(), counterless.account.email, counterless.authenticator, undefined, { counter: 0 });
      expect(res.body.state).toBe('Done');
    }
  });

  it.each([
    ['a single-device passkey now backup eligible', {}, { backupEligible: true, backedUp: true }],
    ['a synced passkey now single-device', { backupEligible: true, backedUp: true }, {}],
  ])('refuses %s (BE never changes: another authenticator holds the key), passkey/invalid, audited as a suspected clone', async (_name, registered, now) => {
    const { account, authenticator, passkeyId } = await withPasskey({ totp: 0 }, registered);
    const before = await backupOf(passkeyId);
    await expectRefused(await passkeySignIn(t.agent(), account.email, authenticator, undefined, now));
    expect(await cloneAlarms(account.id)).toEqual([['passkey/clone-suspected', 'backup_eligibility']]);
    expect(await failureReasons(account.id)).toEqual(['passkey/invalid']);
    expect(await counterOf(passkeyId)).toBe(0);
    expect(await backupOf(passkeyId)).toEqual(before);
    // The authenticator it was registered on signs in as before.
    expect((await passkeySignIn(t.agent(), account.email, authenticator, undefined, registered)).body.state).toBe('Done');
  });

  it('keeps the backup state (BS) of each accepted use: syncing turned on or off is no clone', async () => {
    const { account, authenticator, passkeyId } = await withPasskey({ totp: 0 }, { backupEligible: true });
    expect(await backupOf(passkeyId)).toEqual({ device_type: 'multiDevice', backed_up: false });
    expect((await passkeySignIn(t.agent(), account.email, authenticator, undefined, { backupEligible: true, backedUp: true })).body.state).toBe('Done');
    expect(await backupOf(passkeyId)).toEqual({ device_type: 'multiDevice', backed_up: true });
    expect((await passkeySignIn(t.agent(), account.email, authenticator, undefined, { backupEligible: true })).body.state).toBe('Done');
    expect(await backupOf(passkeyId)).toEqual({ device_type: 'multiDevice', backed_up: false });
    expect(await counterOf(passkeyId)).toBe(2);
    expect(await cloneAlarms(account.id)).toEqual([]);
  });

  it('a low counter under a forged signature raises no clone alarm: only the key’s own signature counts', async () => {
    const { account, authenticator } = await withPasskey({ totp: 0 });
    expect((await passkeySignIn(t.agent(), account.email, authenticator, undefined, { counter: 5 })).body.state).toBe('Done');
    const forger = authenticatorFor(t);
    forger.register({ challenge: 'x', rp: {} });
    const browser = t.agent();
    const { sessionId, options } = await passkeyOptions(browser, account.email);
    const forged = forger.authenticate(options.body, undefined, { counter: 1 });
    const response = { ...forged, id: authenticator.credentials[0]!.id, rawId: authenticator.credentials[0]!.id };
    await expectRefused(await browser.post('/auth/login/passkey/verify').send({ session_id: sessionId, response }));
    expect(await cloneAlarms(account.id)).toEqual([]);
  });

  it('refuses another account’s passkey (passkey/unknown), even answering this sign-in’s challenge', async () => {
    const owner = await withPasskey({ totp: 0 });
    const { account, authenticator } = await withPasskey({ totp: 0 });
    const browser = t.agent();
    const { sessionId, options } = await passkeyOptions(browser, account.email);
    const response = owner.authenticator.authenticate(options.body);
    await expectRefused(await browser.post('/auth/login/passkey/verify').send({ session_id: sessionId, response }), 'passkey/unknown');
    expect(authenticator.credentials).toHaveLength(1);
    const failed = await t.ctx.db('audit_events').where({ target_account_id: account.id, action: 'login.failed' }).first();
    expect(failed.details).toMatchObject({ method: 'webauthn', reason: 'passkey/unknown' });
  });

  it('a forged signature (another key under the right credential id) is refused', async () => {
    const { account, authenticator } = await withPasskey({ totp: 0 });
    const forger: SoftAuthenticator = authenticatorFor(t);
    const browser = t.agent();
    const { sessionId, options } = await passkeyOptions(browser, account.email);
    forger.register({ challenge: 'x', rp: {} });
    const forged = forger.authenticate(options.body);
    const response = { ...forged, id: authenticator.credentials[0]!.id, rawId: authenticator.credentials[0]!.id };
    await expectRefused(await browser.post('/auth/login/passkey/verify').send({ session_id: sessionId, response }));
  });

  it('is only allowed in CredentialsRequired, with this browser’s login session and a well-formed answer', async () => {
    const { account, authenticator } = await withPasskey({ totp: 0 });
    const browser = t.agent();
    const { sessionId, options } = await passkeyOptions(browser, account.email);
    const response = authenticator.authenticate(options.body);

    const other = await t.agent().post('/auth/login/passkey/verify').send({ session_id: sessionId, response });
    expect([other.status, errorType(other)]).toEqual([401, 'login_session_missing']);
    for (const body of [{ session_id: sessionId }, { session_id: sessionId, response: { ...response, type: 'other' } }, { session_id: sessionId, response: { ...response, id: 'not base64url!' } }]) {
      const res = await browser.post('/auth/login/passkey/verify').send(body);
      expect([res.status, errorType(res)]).toEqual([422, 'validation_error']);
    }

    const unknownEmail = t.agent();
    const started = await start(unknownEmail, 'nobody-passkey@example.com');
    expect(started.body.state).toBe('OTPRequired');
    const refused = await unknownEmail.post('/auth/login/passkey/options').send({ session_id: started.body.session_id });
    expect([refused.status, errorType(refused)]).toEqual([409, 'invalid_login_session_state']);
  });

  it('failed passkey answers are audited but never lock the address', async () => {
    const { account, authenticator } = await withPasskey({ totp: 0 });
    const statuses: number[] = [];
    for (let i = 0; i < 11; i += 1) {
      statuses.push((await passkeySignIn(t.agent(), account.email, authenticator, undefined, { userVerified: false })).status);
    }
    expect(statuses).toEqual(Array(11).fill(401));
    const failures = await t.ctx.db('audit_events').where({ target_account_id: account.id, action: 'login.failed' }).select('details');
    expect(failures.map((row) => row.details.method)).toEqual(Array(11).fill('webauthn'));
    expect(await lockedSeconds(t.ctx, { email: account.email })).toBe(0);
    expect((await signInWithPassword(t.agent(), account.email, password)).body.state).toBe('Done');
  });

  it('a lock from wrong passwords holds the password only: the passkey signs in from a new browser, and the lock stays', async () => {
    const { account, authenticator } = await withPasskey({ totp: 0 });
    const wrong: number[] = [];
    for (let i = 0; i < 10; i += 1) wrong.push((await signInWithPassword(t.agent(), account.email, 'Wrong-Horse-1')).status);
    expect(wrong).toEqual([...Array(9).fill(401), 423]);

    // Start goes on to the credentials step (the account has a passkey); the right password is refused there.
    const byPassword = await signInWithPassword(t.agent(), account.email, password);
    expect([byPassword.status, errorType(byPassword)]).toEqual([423, 'account_locked']);

    const byPasskey = await passkeySignIn(t.agent(), account.email, authenticator);
    expect(byPasskey.body).toMatchObject({ state: 'Done', email: account.email });
    expect(setCookies(byPasskey).has('nyckel_session')).toBe(true);
    // The owner's passkey sign-in does not restart the guesser's run: the lock is still there.
    expect(await lockedSeconds(t.ctx, { email: account.email })).toBeGreaterThan(14 * 60);
    const again = await signInWithPassword(t.agent(), account.email, password);
    expect([again.status, errorType(again)]).toEqual([423, 'account_locked']);
  });

  it('a passkey sign-in opens the operator console (its amr is a second factor); a password alone does not', async () => {
    const { account, authenticator } = await withPasskey({ totp: 0, operator: true });
    const byPassword = t.agent();
    await signIn(t.ctx, byPassword, account);
    const refused = await byPassword.get('/api/operator');
    expect([refused.status, errorType(refused)]).toEqual([403, 'operator/mfa-required']);

    const byPasskey = t.agent();
    expect((await passkeySignIn(byPasskey, account.email, authenticator)).body.state).toBe('Done');
    const allowed = await byPasskey.get('/api/operator');
    expect(allowed.status).toBe(200);
    expect(allowed.body).toMatchObject({ email: account.email, role: 'admin' });
  });
});
