import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listPortalSessions } from '../../src/session/portal-session.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { errorType } from '../login/journey.ts';
import { codeAt, createTotpAccount, nextStep, passwordStep, verifyMfa, wrongCode } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const merge = (browser: ReturnType<TestApp['agent']>, sessionId: string, code: string) =>
  browser.post('/auth/login/merge-mfa').send({ session_id: sessionId, totp_code: code });

const totpIdsOf = async (accountId: string) => t.ctx.db('credentials').where({ account_id: accountId, type: 'totp' }).orderBy('created_at').pluck('id');

describe('merge-mfa: several TOTP credentials, keep one', () => {
  it('keeps the credential whose code matches, deletes the others, and signs in with both factors', async () => {
    const account = await createTotpAccount(t.ctx, { totp: 3 });
    const browser = t.agent();
    const reset = await passwordStep(browser, account.email, 'TOTPResetRequired');
    expect(reset.body.allow_totp_remember).toBe(false);
    expect(reset.body.available_credentials.filter((c: { type: string }) => c.type === 'totp')).toHaveLength(3);

    const done = await merge(browser, reset.body.session_id, await codeAt(t.ctx, account.secrets[1]!));
    expect(done.status).toBe(200);
    expect(done.body.state).toBe('Done');
    expect(done.body.available_credentials.filter((c: { type: string }) => c.type === 'totp')).toEqual([
      { id: account.totpIds[1], type: 'totp', provider: null },
    ]);
    expect(await totpIdsOf(account.id)).toEqual([account.totpIds[1]]);
    expect((await listPortalSessions(t.ctx, account.id))[0]!.amr).toEqual(['pwd', 'otp', 'mfa']);

    const audit = await t.ctx.db('audit_events').where({ target_account_id: account.id, action: 'totp.merged' });
    expect(audit).toHaveLength(1);
    expect(audit[0].details.kept_credential_id).toBe(account.totpIds[1]);
    expect([...audit[0].details.removed_credential_ids].sort()).toEqual([account.totpIds[0], account.totpIds[2]].sort());

    // From now on the account has one authenticator: MfaRequired, and only the kept one works.
    nextStep(t.ctx);
    const next = t.agent();
    const mfa = await passwordStep(next, account.email, 'MfaRequired');
    expect(errorType(await verifyMfa(next, mfa.body.session_id, await codeAt(t.ctx, account.secrets[0]!)))).toBe('mfa/invalid');
    expect((await verifyMfa(next, mfa.body.session_id, await codeAt(t.ctx, account.secrets[1]!))).body.state).toBe('Done');
  });

  it('refuses a wrong code with mfa/invalid and deletes nothing', async () => {
    const account = await createTotpAccount(t.ctx, { totp: 2 });
    const browser = t.agent();
    const reset = await passwordStep(browser, account.email, 'TOTPResetRequired');
    const res = await merge(browser, reset.body.session_id, await wrongCode(t.ctx, account.secrets[0]!));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: [{ type: 'mfa/invalid', msg: 'Invalid code. Please try again.' }] });
    expect(await totpIdsOf(account.id)).toEqual(account.totpIds);
  });

  it('accepts a code once: the same code in another sign-in is refused', async () => {
    const account = await createTotpAccount(t.ctx, { totp: 2 });
    const code = await codeAt(t.ctx, account.secrets[0]!);
    const [a, b] = [t.agent(), t.agent()];
    const [ra, rb] = [await passwordStep(a, account.email, 'TOTPResetRequired'), await passwordStep(b, account.email, 'TOTPResetRequired')];
    const answers = await Promise.all([merge(a, ra.body.session_id, code), merge(b, rb.body.session_id, code)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 401]);
    expect(await totpIdsOf(account.id)).toEqual([account.totpIds[0]]);
  });

  it('two sign-ins merging at once with codes of different credentials keep exactly one', async () => {
    const account = await createTotpAccount(t.ctx, { totp: 2 });
    const [a, b] = [t.agent(), t.agent()];
    const [ra, rb] = [await passwordStep(a, account.email, 'TOTPResetRequired'), await passwordStep(b, account.email, 'TOTPResetRequired')];
    const answers = await Promise.all([
      merge(a, ra.body.session_id, await codeAt(t.ctx, account.secrets[0]!)),
      merge(b, rb.body.session_id, await codeAt(t.ctx, account.secrets[1]!)),
    ]);
    const remaining = await totpIdsOf(account.id);
    expect(remaining).toHaveLength(1);
    const winners = answers.filter((r) => r.body.state === 'Done');
    expect(winners).toHaveLength(1);
    expect(winners[0]!.body.available_credentials.filter((c: { type: string }) => c.type === 'totp').map((c: { id: string }) => c.id)).toEqual(remaining);
    for (const loser of answers.filter((r) => r.body.state !== 'Done')) expect(errorType(loser)).toBe('mfa/invalid');
  });

  it('has the same failure limit: the fifth wrong code ends the login session', async () => {
    const account = await createTotpAccount(t.ctx, { totp: 2 });
    const browser = t.agent();
    const reset = await passwordStep(browser, account.email, 'TOTPResetRequired');
    const wrong = await wrongCode(t.ctx, account.secrets[0]!);
    for (let i = 0; i < 4; i += 1) expect(errorType(await merge(browser, reset.body.session_id, wrong))).toBe('mfa/invalid');
    const fifth = await merge(browser, reset.body.session_id, wrong);
    expect([fifth.status, errorType(fifth)]).toEqual([429, 'mfa/retries-exceeded']);
    expect(errorType(await merge(browser, reset.body.session_id, await codeAt(t.ctx, account.secrets[0]!)))).toBe('login_session_missing');
    expect(await totpIdsOf(account.id)).toHaveLength(2);
  });

  it('refuses merge-mfa outside TOTPResetRequired', async () => {
    const account = await createTotpAccount(t.ctx, { totp: 2 });
    const browser = t.agent();
    const started = await browser.post('/auth/login/start').send({ email: account.email });
    const res = await merge(browser, started.body.session_id, await codeAt(t.ctx, account.secrets[0]!));
    expect([res.status, errorType(res)]).toEqual([409, 'invalid_login_session_state']);
    expect(await totpIdsOf(account.id)).toHaveLength(2);
  });
});
