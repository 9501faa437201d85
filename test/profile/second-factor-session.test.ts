import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertTotpCredential } from '../../src/credentials/totp/totp.repository.ts';
import { listPortalSessions } from '../../src/session/portal-session.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { errorType } from '../login/journey.ts';
import { authenticatorFor, passkeySignIn, registerPasskey } from '../passkeys/helpers.ts';
import { codeAt, createTotpAccount, nextStep, passwordStep, signIn, verifyMfa, type TotpAccount } from '../totp/helpers.ts';

/**
 * An account with a second factor changes its second factors only from a sign-in that proved one
 * (NIST SP 800-63B 6.1.2.1), operator or not. The sign-in of the security finding: a TOTP
 * account's password on a browser remembered for the code, which then registered a passkey of
 * its own, removed the TOTP and signed in at the second-factor level with the passkey.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

type Browser = ReturnType<TestApp['agent']>;

const refused = {
  status: 403,
  body: {
    detail: [
      { type: 'profile/mfa-required', msg: 'Sign in again with your passkey, or with your password and authenticator code, to change how you sign in' },
    ],
  },
};

const answer = (res: { status: number; body: unknown }) => ({ status: res.status, body: res.body });

/**
 * A (non-operator) TOTP account and a browser signed in with its password alone: "remember this
 * device" was ticked at an earlier sign-in, so the code was skipped (amr ['pwd']).
 */
async function onRememberedBrowser(options: { webauthn?: number } = {}): Promise<{ account: TotpAccount; browser: Browser }> {
  const account = await createTotpAccount(t.ctx, options);
  const browser = t.agent();
  const mfa = await passwordStep(browser, account.email);
  expect((await verifyMfa(browser, mfa.body.session_id, await codeAt(t.ctx, account.secrets[0]!), true)).body.state).toBe('Done');
  t.ctx.advance(60_000);
  await passwordStep(browser, account.email, 'Done');
  expect((await listPortalSessions(t.ctx, account.id)).map((s) => s.amr)).toContainEqual(['pwd']);
  expect(await t.ctx.db('operator_roles').where({ account_id: account.id })).toEqual([]);
  return { account, browser };
}

/** A registration answer to options of the authenticator's own making: refused before it is looked at. */
function unsolicitedRegistration(account: TotpAccount) {
  const authenticator = authenticatorFor(t);
  return authenticator.register({
    challenge: Buffer.from('not-issued').toString('base64url'),
    rp: { id: authenticator.rpId, name: 'Nyckel' },
    user: { id: Buffer.from(account.id).toString('base64url'), name: account.email, displayName: account.email },
    pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
    excludeCredentials: [],
  } as Parameters<typeof authenticator.register>[0]).response;
}

const credentialsOf = (account: TotpAccount, type: string) => t.ctx.db('credentials').where({ account_id: account.id, type });

describe('a session that proved no second factor, on an account that has one', () => {
  it('cannot add a passkey (options and verify are 403 profile/mfa-required)', async () => {
    const { account, browser } = await onRememberedBrowser();
    expect(answer(await browser.post('/auth/passkeys/options').send({}))).toEqual(refused);
    expect(answer(await browser.post('/auth/passkeys/verify').send({ response: unsolicitedRegistration(account) }))).toEqual(refused);
    expect(await credentialsOf(account, 'webauthn')).toHaveLength(0);
  });

  it('cannot remove the TOTP, nor re-register it (setup and QR code issue no secret)', async () => {
    const { account, browser } = await onRememberedBrowser();
    expect(answer(await browser.delete(`/oauth2/userinfo/credentials/${account.totpIds[0]}`))).toEqual(refused);
    expect(answer(await browser.get('/auth/tfa/setup'))).toEqual(refused);
    expect(answer(await browser.get('/auth/qrcode'))).toEqual(refused);
    expect((await credentialsOf(account, 'totp')).map((c) => c.id)).toEqual(account.totpIds);
    // No pending secret was created, so nothing can be activated either.
    expect(errorType(await browser.post('/auth/tfa/activate').send({ totp_code: '123456' }))).toBe('totp/no-pending');
  });

  it('cannot remove a passkey either, by either route', async () => {
    const { account, browser } = await onRememberedBrowser({ webauthn: 1 });
    const [passkey] = await credentialsOf(account, 'webauthn');
    expect(answer(await browser.delete(`/auth/passkeys/${passkey.id}`))).toEqual(refused);
    expect(answer(await browser.delete(`/oauth2/userinfo/credentials/${passkey.id}`))).toEqual(refused);
    expect(await credentialsOf(account, 'webauthn')).toHaveLength(1);
  });

  it('whose second factor is a passkey: the password alone (a whole sign-in there) adds no TOTP and no other passkey', async () => {
    const account = await createTotpAccount(t.ctx, { totp: 0, webauthn: 1 });
    const browser = t.agent();
    await signIn(t.ctx, browser, account);
    expect(answer(await browser.get('/auth/tfa/setup'))).toEqual(refused);
    expect(answer(await browser.post('/auth/passkeys/options').send({}))).toEqual(refused);
  });
});

describe('a secret issued while the account had no second factor', () => {
  /** An account without a second factor, and a browser that signed in with its password alone and took a secret. */
  async function passwordSessionWithSecret(): Promise<{ account: TotpAccount; attacker: Browser; secret: string }> {
    const account = await createTotpAccount(t.ctx, { totp: 0 });
    const attacker = t.agent();
    await signIn(t.ctx, attacker, account);
    const setup = await attacker.get('/auth/tfa/setup');
    expect(setup.status).toBe(200);
    return { account, attacker, secret: setup.body.secret as string };
  }

  const methodsOf = async (account: TotpAccount) => (await listPortalSessions(t.ctx, account.id)).map((s) => [...s.amr].sort()).sort();

  it('is not activated once the owner turned on an authenticator app in another browser: the owner’s app stays', async () => {
    const { account, attacker, secret } = await passwordSessionWithSecret();
    const owner = t.agent();
    await signIn(t.ctx, owner, account);
    const setup = await owner.get('/auth/tfa/setup');
    const enrolled = await owner.post('/auth/tfa/activate').send({ totp_code: await codeAt(t.ctx, setup.body.secret) });
    expect(enrolled.status).toBe(200);

    expect(answer(await attacker.post('/auth/tfa/activate').send({ totp_code: await codeAt(t.ctx, secret) }))).toEqual(refused);
    expect((await credentialsOf(account, 'totp')).map((c) => c.id)).toEqual([enrolled.body.id]);
    expect(await methodsOf(account)).toEqual([['mfa', 'otp', 'pwd'], ['pwd']]);
    // The secret was used up by the refused try, and setup answers as it now must.
    expect(errorType(await attacker.post('/auth/tfa/activate').send({ totp_code: await codeAt(t.ctx, secret) }))).toBe('totp/no-pending');
    expect(answer(await attacker.get('/auth/tfa/setup'))).toEqual(refused);
  });

  it('is not activated once the owner added a passkey in another browser: the passkey stays, and the session cannot remove it', async () => {
    const { account, attacker, secret } = await passwordSessionWithSecret();
    const owner = t.agent();
    await signIn(t.ctx, owner, account);
    const { res } = await registerPasskey(owner, authenticatorFor(t));
    expect(res.status).toBe(201);

    expect(answer(await attacker.post('/auth/tfa/activate').send({ totp_code: await codeAt(t.ctx, secret) }))).toEqual(refused);
    expect(await credentialsOf(account, 'totp')).toEqual([]);
    expect(await methodsOf(account)).toEqual([['pwd'], ['pwd']]);
    expect(answer(await attacker.delete(`/auth/passkeys/${res.body.id}`))).toEqual(refused);
    expect((await credentialsOf(account, 'webauthn')).map((c) => c.id)).toEqual([res.body.id]);
  });
});

describe('a passkey registered by a password-only session', () => {
  it('is refused when the account gains an authenticator app between the check and the store: asked again under the lock', async () => {
    const account = await createTotpAccount(t.ctx, { totp: 0 });
    const browser = t.agent();
    await signIn(t.ctx, browser, account);
    // The race, put in order: the registration passed its first check (no second factor yet);
    // the owner's app lands as its challenge is taken, before the passkey is stored.
    const store = t.ctx.store;
    const getDel = store.getDel.bind(store);
    let armed = true;
    store.getDel = async (key: string) => {
      const value = await getDel(key);
      if (armed && key.startsWith('passkey-challenge:register:')) {
        armed = false;
        await insertTotpCredential(t.ctx.db, account.id, t.ctx.secretBox.seal('JBSWY3DPEHPK3PXP'), new Date());
      }
      return value;
    };
    try {
      const { res } = await registerPasskey(browser, authenticatorFor(t));
      expect(armed).toBe(false);
      expect(answer(res)).toEqual(refused);
    } finally {
      store.getDel = getDel;
    }
    expect(await credentialsOf(account, 'webauthn')).toEqual([]);
  });
});

describe('a session that proved the second factor', () => {
  it('after the password and the code (the remembered device forgotten first), adds a passkey, re-registers and removes the TOTP', async () => {
    const { account, browser } = await onRememberedBrowser();
    expect(errorType(await browser.get('/auth/tfa/setup'))).toBe('profile/mfa-required');

    // What the portal does before sending the person to /login?second_factor=1.
    const [device] = (await browser.get('/auth/tfa/devices')).body.devices;
    expect(device.current).toBe(true);
    expect((await browser.delete(`/auth/tfa/devices/${device.id}`)).status).toBe(204);
    nextStep(t.ctx);
    const mfa = await passwordStep(browser, account.email);
    expect((await verifyMfa(browser, mfa.body.session_id, await codeAt(t.ctx, account.secrets[0]!))).body.state).toBe('Done');

    expect((await registerPasskey(browser, authenticatorFor(t))).res.status).toBe(201);
    const setup = await browser.get('/auth/tfa/setup');
    expect(setup.status).toBe(200);
    const activated = await browser.post('/auth/tfa/activate').send({ totp_code: await codeAt(t.ctx, setup.body.secret) });
    expect(activated.status).toBe(200);
    expect((await browser.delete(`/oauth2/userinfo/credentials/${activated.body.id}`)).status).toBe(204);
    expect(await credentialsOf(account, 'totp')).toEqual([]);
  });

  it('after a passkey sign-in, removes the TOTP', async () => {
    const account = await createTotpAccount(t.ctx);
    const authenticator = authenticatorFor(t);
    const setup = t.agent();
    await signIn(t.ctx, setup, account);
    expect((await registerPasskey(setup, authenticator)).res.status).toBe(201);

    const byPasskey = t.agent();
    expect((await passkeySignIn(byPasskey, account.email, authenticator)).body.state).toBe('Done');
    expect((await byPasskey.delete(`/oauth2/userinfo/credentials/${account.totpIds[0]}`)).status).toBe(204);
  });
});

describe('an account without a second factor', () => {
  it('enrols its first TOTP after a password sign-in', async () => {
    const account = await createTotpAccount(t.ctx, { totp: 0 });
    const browser = t.agent();
    await signIn(t.ctx, browser, account);
    const setup = await browser.get('/auth/tfa/setup');
    expect(setup.status).toBe(200);
    expect((await browser.post('/auth/tfa/activate').send({ totp_code: await codeAt(t.ctx, setup.body.secret) })).status).toBe(200);
    expect(await credentialsOf(account, 'totp')).toHaveLength(1);
  });

  it('the session that activated its first TOTP has proved it, and adds a passkey at once; another session has not', async () => {
    const account = await createTotpAccount(t.ctx, { totp: 0 });
    const other = t.agent();
    await signIn(t.ctx, other, account);
    const browser = t.agent();
    await signIn(t.ctx, browser, account);
    const setup = await browser.get('/auth/tfa/setup');
    expect((await browser.post('/auth/tfa/activate').send({ totp_code: await codeAt(t.ctx, setup.body.secret) })).status).toBe(200);

    const methods = (await listPortalSessions(t.ctx, account.id)).map((s) => [...s.amr].sort());
    expect(methods).toEqual(expect.arrayContaining([['pwd'], ['mfa', 'otp', 'pwd']]));
    expect((await registerPasskey(browser, authenticatorFor(t))).res.status).toBe(201);
    // The browser signed in with the password alone before the app was turned on proved nothing more.
    expect(answer(await other.post('/auth/passkeys/options').send({}))).toEqual(refused);
    expect(await credentialsOf(account, 'webauthn')).toHaveLength(1);
  });

  it('registers its first passkey after a password sign-in', async () => {
    const account = await createTotpAccount(t.ctx, { totp: 0 });
    const browser = t.agent();
    await signIn(t.ctx, browser, account);
    expect((await registerPasskey(browser, authenticatorFor(t))).res.status).toBe(201);
    expect(await credentialsOf(account, 'webauthn')).toHaveLength(1);
  });
});
