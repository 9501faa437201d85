import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { errorType, setCookies, start } from '../login/journey.ts';
import { codeAt, createTotpAccount, password, signIn } from '../totp/helpers.ts';
import { authenticatorFor, passkeySignIn, registerPasskey } from './helpers.ts';

/**
 * An operator's second factor is what opens the console, so a password alone (phished, or set
 * through a reset link) must not be enough to enrol one of one's own, nor may a remembered
 * browser stand in for it.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const SECOND_FACTOR_MSG = 'Sign in again with your passkey, or with your password and authenticator code, to change how you sign in';

/** An admin operator whose only second factor is a passkey, registered while they had none. */
async function passkeyOnlyAdmin() {
  const account = await createTotpAccount(t.ctx, { totp: 0, operator: true });
  const setup = t.agent();
  await signIn(t.ctx, setup, account);
  const authenticator = authenticatorFor(t);
  expect((await registerPasskey(setup, authenticator)).res.status).toBe(201);
  return { account, authenticator };
}

describe("an operator's second factors", () => {
  it('cannot be added from a password-only session: no TOTP secret, no passkey (403 profile/mfa-required), no console (403 operator/mfa-required)', async () => {
    const { account } = await passkeyOnlyAdmin();
    const byPassword = t.agent();
    await signIn(t.ctx, byPassword, account);
    for (const res of [
      await byPassword.get('/auth/tfa/setup'),
      await byPassword.get('/auth/qrcode'),
      await byPassword.post('/auth/passkeys/options').send({}),
    ]) {
      // Not reauthentication_required: signing in again with the password alone would not help.
      expect([res.status, res.body]).toEqual([403, { detail: [{ type: 'profile/mfa-required', msg: SECOND_FACTOR_MSG }] }]);
    }
    expect(await t.ctx.db('credentials').where({ account_id: account.id, type: 'totp' })).toHaveLength(0);
    expect(errorType(await byPassword.get('/api/operator'))).toBe('operator/mfa-required');
  });

  it('are added from a session that proved one (a passkey sign-in)', async () => {
    const { account, authenticator } = await passkeyOnlyAdmin();
    const byPasskey = t.agent();
    expect((await passkeySignIn(byPasskey, account.email, authenticator)).body.state).toBe('Done');
    const setup = await byPasskey.get('/auth/tfa/setup');
    expect(setup.status).toBe(200);
    const activated = await byPasskey.post('/auth/tfa/activate').send({ totp_code: await codeAt(t.ctx, setup.body.secret) });
    expect(activated.status).toBe(200);
  });

  it('are not removed from a password-only session either, even when another one stays', async () => {
    const { account } = await passkeyOnlyAdmin();
    // A second passkey, as if registered from a passkey sign-in.
    const [extra] = await t.ctx.db('credentials').insert({ account_id: account.id, type: 'webauthn', subject: `extra-${account.id}`, public_key: Buffer.from([1]) }).returning('id');
    const byPassword = t.agent();
    await signIn(t.ctx, byPassword, account);
    const res = await byPassword.delete(`/auth/passkeys/${(extra as { id: string }).id}`);
    expect([res.status, errorType(res)]).toEqual([403, 'profile/mfa-required']);
    expect(await t.ctx.db('credentials').where({ account_id: account.id, type: 'webauthn' })).toHaveLength(2);
  });

  it('bind a person without an operator role alike: a user with a passkey adds no TOTP after a password sign-in', async () => {
    const account = await createTotpAccount(t.ctx, { totp: 0, webauthn: 1 });
    const browser = t.agent();
    await signIn(t.ctx, browser, account);
    expect(errorType(await browser.get('/auth/tfa/setup'))).toBe('profile/mfa-required');
  });
});

describe('remembered browsers and operators', () => {
  async function toMfa(browser: ReturnType<TestApp['agent']>, email: string) {
    const started = await start(browser, email);
    return browser.post('/auth/login/verify-password').send({ session_id: started.body.session_id, email, password });
  }

  it('offer no "remember this device" to an operator, and ignore the request', async () => {
    const account = await createTotpAccount(t.ctx, { operator: true });
    const browser = t.agent();
    const mfa = await toMfa(browser, account.email);
    expect(mfa.body).toMatchObject({ state: 'MfaRequired', allow_totp_remember: false });
    const done = await browser.post('/auth/login/verify-mfa').send({ session_id: mfa.body.session_id, totp_code: await codeAt(t.ctx, account.secrets[0]!), remember: true });
    expect(done.body.state).toBe('Done');
    expect(setCookies(done).has('nyckel_device')).toBe(false);
    expect((await toMfa(browser, account.email)).body.state).toBe('MfaRequired');
  });

  it('no longer skip the code once the account becomes an operator, so the console opens after the sign-in', async () => {
    const account = await createTotpAccount(t.ctx);
    const browser = t.agent();
    const mfa = await toMfa(browser, account.email);
    expect(mfa.body.allow_totp_remember).toBe(true);
    const remembered = await browser.post('/auth/login/verify-mfa').send({ session_id: mfa.body.session_id, totp_code: await codeAt(t.ctx, account.secrets[0]!), remember: true });
    expect(setCookies(remembered).has('nyckel_device')).toBe(true);
    expect((await toMfa(browser, account.email)).body.state).toBe('Done');

    await t.ctx.db('operator_roles').insert({ account_id: account.id, role: 'support' });
    const again = await toMfa(browser, account.email);
    expect(again.body).toMatchObject({ state: 'MfaRequired', allow_totp_remember: false });
    await browser.post('/auth/login/verify-mfa').send({ session_id: again.body.session_id, totp_code: await codeAt(t.ctx, account.secrets[0]!, 1) });
    expect((await browser.get('/api/operator')).status).toBe(200);
  });
});
