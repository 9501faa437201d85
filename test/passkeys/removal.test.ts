import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { errorType, start } from '../login/journey.ts';
import { createTotpAccount, nextStep, signIn, type TotpAccountOptions } from '../totp/helpers.ts';
import { authenticatorFor, passkeySignIn, registerPasskey } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

type Browser = ReturnType<TestApp['agent']>;

/** Signed in with a password (and TOTP when enrolled), with one passkey registered. */
async function signedInWithPasskey(options: TotpAccountOptions = {}) {
  const account = await createTotpAccount(t.ctx, { totp: 0, ...options });
  const browser = t.agent();
  await signIn(t.ctx, browser, account);
  const authenticator = authenticatorFor(t);
  const { res } = await registerPasskey(browser, authenticator);
  expect(res.status).toBe(201);
  return { account, browser, authenticator, passkeyId: res.body.id as string };
}

const remove = (browser: Browser, id: string) => browser.delete(`/auth/passkeys/${encodeURIComponent(id)}`);
const passkeyIds = (accountId: string) => t.ctx.db('credentials').where({ account_id: accountId, type: 'webauthn' }).pluck('id');

describe('DELETE /auth/passkeys/{id}', () => {
  it('removes a passkey within 5 minutes of signing in: gone from the list and the sign-in, audited', async () => {
    // With TOTP, the sign-in proved a second factor, as removing one needs.
    const { account, browser, passkeyId } = await signedInWithPasskey({ totp: 1 });
    const res = await remove(browser, passkeyId);
    expect([res.status, res.text]).toEqual([204, '']);
    expect((await browser.get('/auth/passkeys')).body).toEqual({ passkeys: [] });
    const audit = await t.ctx.db('audit_events').where({ target_account_id: account.id, action: 'passkey.removed' });
    expect(audit.map((a) => a.details)).toEqual([{ credential_id: passkeyId, type: 'webauthn', provider: null, via: 'profile' }]);
    expect((await start(t.agent(), account.email)).body.passkey).toBeUndefined();
  });

  it('needs a sign-in within the last 5 minutes (403 reauthentication_required); a fresh passkey sign-in is one', async () => {
    const { account, browser, authenticator, passkeyId } = await signedInWithPasskey();
    t.ctx.advance(5 * 60_000 + 1000);
    const stale = await remove(browser, passkeyId);
    expect([stale.status, errorType(stale)]).toEqual([403, 'reauthentication_required']);
    expect(await passkeyIds(account.id)).toEqual([passkeyId]);

    const fresh = t.agent();
    expect((await passkeySignIn(fresh, account.email, authenticator)).body.state).toBe('Done');
    expect((await remove(fresh, passkeyId)).status).toBe(204);
  });

  it('answers 404 for another person’s passkey, a non-passkey credential of one’s own, an unknown and a malformed id', async () => {
    const other = await signedInWithPasskey();
    const { account, browser } = await signedInWithPasskey({ totp: 1 });
    for (const id of [other.passkeyId, account.totpIds[0]!, account.passwordId!, '5b0d3a9e-1c2f-4e8a-9b7d-0123456789ab', 'nope']) {
      const res = await remove(browser, id);
      expect([id, res.status, errorType(res)]).toEqual([id, 404, 'not_found']);
    }
    expect(await passkeyIds(other.account.id)).toEqual([other.passkeyId]);
    expect(await t.ctx.db('credentials').where({ account_id: account.id })).toHaveLength(3);
  });

  it('never removes a User’s last way to sign in (credential/last-sign-in-method)', async () => {
    const { account, browser, passkeyId } = await signedInWithPasskey();
    await t.ctx.db('credentials').where({ id: account.passwordId }).delete();
    const res = await remove(browser, passkeyId);
    expect([res.status, errorType(res)]).toEqual([409, 'credential/last-sign-in-method']);
    expect(await passkeyIds(account.id)).toEqual([passkeyId]);
  });

  it('keeps an operator’s only second factor (credential/second-factor-required)', async () => {
    const { account, browser, passkeyId } = await signedInWithPasskey({ operator: true });
    const res = await remove(browser, passkeyId);
    expect([res.status, errorType(res)]).toEqual([409, 'credential/second-factor-required']);
    expect(await passkeyIds(account.id)).toEqual([passkeyId]);
  });

  it('needs a session and our origin', async () => {
    const { browser, passkeyId } = await signedInWithPasskey();
    const anonymous = await remove(t.agent(), passkeyId);
    expect([anonymous.status, errorType(anonymous)]).toEqual([401, 'unauthorized']);
    const crossSite = await browser.delete(`/auth/passkeys/${passkeyId}`).set('Origin', 'https://evil.example');
    expect([crossSite.status, errorType(crossSite)]).toEqual([403, 'cross_site_request']);
  });
});

describe('removing a credential from the profile signs the other sessions out', () => {
  const userinfo = async (browser: Browser) => (await browser.get('/oauth2/userinfo')).status;

  it.each([
    ['a passkey, DELETE /auth/passkeys/{id}', (browser: Browser, ids: { passkeyId: string }) => remove(browser, ids.passkeyId)],
    ['the authenticator app, DELETE /oauth2/userinfo/credentials/{id}', (browser: Browser, ids: { totpId: string }) => browser.delete(`/oauth2/userinfo/credentials/${ids.totpId}`)],
  ])('%s: the phone’s session ends, this browser stays signed in and keeps its standing', async (_what, removal) => {
    const { account, browser, passkeyId } = await signedInWithPasskey({ totp: 1 });
    const phone = t.agent();
    nextStep(t.ctx); // a TOTP code is taken once
    await signIn(t.ctx, phone, account);
    expect([await userinfo(browser), await userinfo(phone)]).toEqual([200, 200]);

    const res = await removal(browser, { passkeyId, totpId: account.totpIds[0]! });
    expect(res.status).toBe(204);
    expect([await userinfo(browser), await userinfo(phone)]).toEqual([200, 401]);
    expect((await browser.get('/api/accounts/sessions')).body.sessions).toHaveLength(1);
  });
});
