import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { errorType, start } from '../login/journey.ts';
import { codeAt, createTotpAccount, passwordStep, signIn, verifyMfa, type TotpAccount, type TotpAccountOptions } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

type Browser = ReturnType<TestApp['agent']>;

const remove = (browser: Browser, id: string) => browser.delete(`/oauth2/userinfo/credentials/${id}`);
const credentialIds = (account: TotpAccount, type?: string) =>
  t.ctx.db('credentials').where({ account_id: account.id, ...(type ? { type } : {}) }).orderBy('created_at').pluck('id');

/** Signed in with a password (and TOTP when enrolled). */
async function signedIn(options: TotpAccountOptions) {
  const account = await createTotpAccount(t.ctx, options);
  const browser = t.agent();
  await signIn(t.ctx, browser, account);
  return { account, browser };
}

/**
 * A signed-in account without a password (as after a Google sign-in, which arrives later): signed
 * in with a password that is then dropped from the database.
 */
async function signedInWithoutPassword(options: TotpAccountOptions) {
  const { account, browser } = await signedIn({ ...options, totp: 0 });
  await t.ctx.db('credentials').where({ id: account.passwordId }).delete();
  return { account, browser };
}

describe('DELETE /oauth2/userinfo/credentials/{id}', () => {
  it('answers 404 not_found for another person’s, an unknown and a malformed id, and removes nothing', async () => {
    const { browser } = await signedIn({ totp: 0, is_user: false, is_stakeholder: true });
    const other = await createTotpAccount(t.ctx, { is_user: false, is_stakeholder: true, oidc: ['accounts.google.com'] });
    const [othersOidc] = await credentialIds(other, 'oidc');
    for (const id of [othersOidc!, other.totpIds[0]!, '5b0d3a9e-1c2f-4e8a-9b7d-0123456789ab', 'not-a-uuid', "1' or '1'='1"]) {
      const res = await remove(browser, encodeURIComponent(id));
      expect([id, res.status, res.body]).toEqual([id, 404, { detail: [{ type: 'not_found', msg: 'Not found' }] }]);
    }
    expect(await credentialIds(other)).toHaveLength(3);
  });

  it('refuses the password of a User account (credential/password-required)', async () => {
    const { account, browser } = await signedIn({ totp: 0, oidc: ['accounts.google.com'] });
    const res = await remove(browser, account.passwordId!);
    expect(res.status).toBe(409);
    expect(errorType(res)).toBe('credential/password-required');
    expect(await credentialIds(account, 'password')).toEqual([account.passwordId]);
  });

  it('lets a Stakeholder remove its only password: it then signs in by email code', async () => {
    const { account, browser } = await signedIn({ totp: 0, is_user: false, is_stakeholder: true });
    const res = await remove(browser, account.passwordId!);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await credentialIds(account)).toEqual([]);
    const audit = await t.ctx.db('audit_events').where({ target_account_id: account.id, action: 'credential.removed' });
    expect(audit.map((a) => a.details)).toEqual([{ credential_id: account.passwordId, type: 'password', provider: null, via: 'profile' }]);
    expect((await start(t.agent(), account.email)).body.state).toBe('OTPRequired');
  });

  it('keeps a User’s last first-factor credential (credential/last-sign-in-method) but lets one of two go', async () => {
    const { account, browser } = await signedInWithoutPassword({ oidc: ['accounts.google.com', 'login.microsoftonline.com'] });
    const [google, microsoft] = await credentialIds(account, 'oidc');
    expect((await remove(browser, google!)).status).toBe(204);
    const last = await remove(browser, microsoft!);
    expect([last.status, errorType(last)]).toEqual([409, 'credential/last-sign-in-method']);
    expect(await credentialIds(account, 'oidc')).toEqual([microsoft]);
  });

  it('two removals at once cannot both pass the last-sign-in-method rule', async () => {
    const { account, browser } = await signedInWithoutPassword({ oidc: ['accounts.google.com', 'login.microsoftonline.com'] });
    const ids = await credentialIds(account, 'oidc');
    const answers = await Promise.all(ids.map((id) => remove(browser, id)));
    expect(answers.map((a) => a.status).sort()).toEqual([204, 409]);
    expect(await credentialIds(account, 'oidc')).toHaveLength(1);
  });

  it('lets a Stakeholder without a password remove its last upstream credential', async () => {
    const { account, browser } = await signedInWithoutPassword({ is_user: false, is_stakeholder: true, oidc: ['accounts.google.com'] });
    const [google] = await credentialIds(account, 'oidc');
    expect((await remove(browser, google!)).status).toBe(204);
  });

  it('refuses to remove an upstream credential without a recent sign-in (every sign-in method needs one)', async () => {
    const { account, browser } = await signedIn({ totp: 0, oidc: ['accounts.google.com'] });
    t.ctx.advance(10 * 60_000);
    const [google] = await credentialIds(account, 'oidc');
    const res = await remove(browser, google!);
    expect(res.status).toBe(403);
    expect(res.body.detail[0].type).toBe('reauthentication_required');
    expect(await credentialIds(account, 'oidc')).toEqual([google]);
  });

  it('removes TOTP within 5 minutes of signing in; the next sign-in asks no code and remembered devices are gone', async () => {
    const account = await createTotpAccount(t.ctx);
    const browser = t.agent();
    const mfa = await passwordStep(browser, account.email);
    expect((await verifyMfa(browser, mfa.body.session_id, await codeAt(t.ctx, account.secrets[0]!), true)).body.state).toBe('Done');
    expect((await browser.get('/auth/tfa/devices')).body.devices).toHaveLength(1);

    const res = await remove(browser, account.totpIds[0]!);
    expect(res.status).toBe(204);
    expect(await credentialIds(account, 'totp')).toEqual([]);
    expect((await browser.get('/auth/tfa/devices')).body.devices).toEqual([]);
    expect((await passwordStep(t.agent(), account.email, 'Done')).body.state).toBe('Done');
  });

  it('refuses removing TOTP or a passkey more than 5 minutes after the sign-in (403 reauthentication_required)', async () => {
    const { account, browser } = await signedIn({ totp: 1, webauthn: 1 });
    t.ctx.advance(6 * 60_000);
    const [passkey] = await credentialIds(account, 'webauthn');
    for (const id of [account.totpIds[0]!, passkey!]) {
      const res = await remove(browser, id);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: [{ type: 'reauthentication_required', msg: 'Please sign in again to change how you sign in' }] });
    }
    expect(await credentialIds(account)).toHaveLength(3);
    // Signing in again makes it possible.
    const fresh = t.agent();
    t.ctx.advance(30_000);
    await signIn(t.ctx, fresh, account);
    expect((await remove(fresh, account.totpIds[0]!)).status).toBe(204);
  });

  it('an operator keeps a second factor (credential/second-factor-required)', async () => {
    const { account, browser } = await signedIn({ totp: 1, operator: true });
    const res = await remove(browser, account.totpIds[0]!);
    expect([res.status, errorType(res)]).toEqual([409, 'credential/second-factor-required']);
    expect(await credentialIds(account, 'totp')).toHaveLength(1);
  });

  it('needs a signed-in person and our origin', async () => {
    const account = await createTotpAccount(t.ctx, { is_user: false, is_stakeholder: true, totp: 0 });
    const anonymous = await remove(t.agent(), account.passwordId!);
    expect([anonymous.status, errorType(anonymous)]).toEqual([401, 'unauthorized']);
    const { account: own, browser } = await signedIn({ is_user: false, is_stakeholder: true, totp: 0 });
    const crossSite = await browser.delete(`/oauth2/userinfo/credentials/${own.passwordId}`).set('Origin', 'https://evil.example');
    expect([crossSite.status, errorType(crossSite)]).toEqual([403, 'cross_site_request']);
    expect(await credentialIds(own)).toHaveLength(1);
  });
});
