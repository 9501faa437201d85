import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxPasskeysPerAccount } from '../../src/credentials/webauthn/registration.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { errorType } from '../login/journey.ts';
import { createTotpAccount, signIn } from '../totp/helpers.ts';
import { authenticatorFor, registerPasskey } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** Signed in with the password and the authenticator code: once the account has a passkey, adding another needs a second factor. */
async function signedIn() {
  const account = await createTotpAccount(t.ctx);
  const browser = t.agent();
  await signIn(t.ctx, browser, account);
  return { account, browser };
}

describe('POST /auth/passkeys/options and /verify: adding a passkey from the profile', () => {
  it('registers a passkey: stored with its key, counter, transports and AAGUID, listed, audited', async () => {
    const { account, browser } = await signedIn();
    const authenticator = authenticatorFor(t);

    const options = await browser.post('/auth/passkeys/options').send({});
    expect(options.status).toBe(200);
    expect(options.body).toMatchObject({
      rp: { id: '127.0.0.1', name: 'Nyckel' },
      user: { name: account.email },
      attestation: 'none',
      excludeCredentials: [],
      authenticatorSelection: { userVerification: 'required', residentKey: 'preferred' },
    });
    // The user handle is the account id, never the email.
    expect(Buffer.from(options.body.user.id, 'base64url').toString('hex')).toBe(account.id.replace(/-/g, ''));

    const { credential, response } = authenticator.register(options.body);
    const res = await browser.post('/auth/passkeys/verify').send({ response, name: '  Work laptop ' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), name: 'Work laptop' });

    const row = await t.ctx.db('credentials').where({ id: res.body.id }).first();
    expect(row).toMatchObject({ account_id: account.id, type: 'webauthn', subject: credential.id });
    expect(Number(row.counter)).toBe(0);
    expect(Buffer.from(row.public_key).equals(Buffer.from(credential.cosePublicKey))).toBe(true);
    expect(row.data).toMatchObject({ name: 'Work laptop', transports: ['internal'], aaguid: '5e5f1a3c-9c0d-4d2a-8b4a-0c1d2e3f4a5b' });

    const listed = await browser.get('/auth/passkeys');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ passkeys: [{ id: res.body.id, name: 'Work laptop', created_at: expect.any(String), last_used_at: null }] });

    const audit = await t.ctx.db('audit_events').where({ target_account_id: account.id, action: 'passkey.registered' });
    expect(audit.map((a) => a.details)).toEqual([{ credential_id: res.body.id, name: 'Work laptop', aaguid: '5e5f1a3c-9c0d-4d2a-8b4a-0c1d2e3f4a5b' }]);

    // The next registration excludes it, so the same authenticator is not registered twice.
    const again = await browser.post('/auth/passkeys/options').send({});
    expect(again.body.excludeCredentials).toEqual([{ id: credential.id, type: 'public-key', transports: ['internal'] }]);
  });

  it('names an unnamed passkey "Passkey"', async () => {
    const { browser } = await signedIn();
    const { res } = await registerPasskey(browser, authenticatorFor(t));
    expect([res.status, res.body.name]).toEqual([201, 'Passkey']);
  });

  it('takes each challenge once: the same answer again is passkey/challenge-expired', async () => {
    const { account, browser } = await signedIn();
    const options = await browser.post('/auth/passkeys/options').send({});
    const { response } = authenticatorFor(t).register(options.body);
    expect((await browser.post('/auth/passkeys/verify').send({ response })).status).toBe(201);
    const replay = await browser.post('/auth/passkeys/verify').send({ response });
    expect([replay.status, errorType(replay)]).toEqual([410, 'passkey/challenge-expired']);
    expect(await t.ctx.db('credentials').where({ account_id: account.id, type: 'webauthn' })).toHaveLength(1);
  });

  it('refuses a credential id that is already registered, to this account or another (passkey/already-registered)', async () => {
    const first = await signedIn();
    const authenticator = authenticatorFor(t);
    const { credential } = await registerPasskey(first.browser, authenticator);
    for (const browser of [first.browser, (await signedIn()).browser]) {
      const options = await browser.post('/auth/passkeys/options').send({});
      const { response } = authenticator.register(options.body, {}, credential);
      const res = await browser.post('/auth/passkeys/verify').send({ response });
      expect([res.status, errorType(res)]).toEqual([409, 'passkey/already-registered']);
    }
    expect(await t.ctx.db('credentials').where({ type: 'webauthn', subject: credential.id })).toHaveLength(1);
  });

  it('refuses an answer for another origin, another RP ID, without user verification, or to another challenge', async () => {
    const { account, browser } = await signedIn();
    const bends = [{ origin: 'https://evil.example' }, { rpId: 'evil.example' }, { userVerified: false }, { type: 'webauthn.get' }, { challenge: 'AAAA' }];
    for (const bend of bends) {
      const { res } = await registerPasskey(browser, authenticatorFor(t), { bend });
      expect([bend, res.status, errorType(res)]).toEqual([bend, 400, 'passkey/registration-invalid']);
    }
    expect(await t.ctx.db('credentials').where({ account_id: account.id, type: 'webauthn' })).toEqual([]);
  });

  it('a challenge expires after 150 s on the server clock', async () => {
    const { browser } = await signedIn();
    const options = await browser.post('/auth/passkeys/options').send({});
    const { response } = authenticatorFor(t).register(options.body);
    t.ctx.advance(151_000);
    const res = await browser.post('/auth/passkeys/verify').send({ response });
    expect([res.status, errorType(res)]).toEqual([410, 'passkey/challenge-expired']);
  });

  it('needs a sign-in within the last 5 minutes, at the options and again at verify', async () => {
    const { account, browser } = await signedIn();
    const options = await browser.post('/auth/passkeys/options').send({});
    const { response } = authenticatorFor(t).register(options.body);
    t.ctx.advance(5 * 60_000 + 1000);
    const late = await browser.post('/auth/passkeys/verify').send({ response });
    expect([late.status, errorType(late)]).toEqual([403, 'reauthentication_required']);
    const refused = await browser.post('/auth/passkeys/options').send({});
    expect([refused.status, errorType(refused)]).toEqual([403, 'reauthentication_required']);
    expect(await t.ctx.db('credentials').where({ account_id: account.id, type: 'webauthn' })).toEqual([]);
  });

  it('needs a session, our origin and a well-formed body', async () => {
    const anonymous = t.agent();
    for (const res of [
      await anonymous.get('/auth/passkeys'),
      await anonymous.post('/auth/passkeys/options').send({}),
      await anonymous.post('/auth/passkeys/verify').send({}),
    ]) {
      expect([res.status, errorType(res)]).toEqual([401, 'unauthorized']);
    }
    const { browser } = await signedIn();
    const crossSite = await browser.post('/auth/passkeys/options').set('Origin', 'https://evil.example').send({});
    expect([crossSite.status, errorType(crossSite)]).toEqual([403, 'cross_site_request']);
    for (const body of [{}, { response: { id: 'x' } }, { response: 'nope' }, { name: 'x'.repeat(65), response: {} }]) {
      const res = await browser.post('/auth/passkeys/verify').send(body);
      expect([res.status, errorType(res)]).toEqual([422, 'validation_error']);
    }
    // Only JSON: a form can never carry an answer here.
    const form = await browser.post('/auth/passkeys/verify').type('form').send({ response: 'x' });
    expect([form.status, errorType(form)]).toEqual([415, 'unsupported_media_type']);
  });

  it(`keeps an account to ${maxPasskeysPerAccount} passkeys (409 passkey/limit-reached), at the options and again at verify`, async () => {
    const { account, browser } = await signedIn();
    const plant = (count: number, from: number) =>
      t.ctx.db('credentials').insert(
        Array.from({ length: count }, (_, i) => ({
          account_id: account.id,
          type: 'webauthn',
          subject: `planted-${account.id}-${from + i}`,
          public_key: Buffer.from([1, 2, 3]),
          counter: 0,
          data: { name: `Key ${from + i}`, transports: [] },
        })),
      );
    await plant(maxPasskeysPerAccount - 1, 0);
    const authenticator = authenticatorFor(t);
    const options = await browser.post('/auth/passkeys/options').send({});
    expect(options.status).toBe(200);
    // Another tab registers the last one meanwhile.
    await plant(1, maxPasskeysPerAccount);
    const { response } = authenticator.register(options.body);
    const late = await browser.post('/auth/passkeys/verify').send({ response });
    expect([late.status, errorType(late)]).toEqual([409, 'passkey/limit-reached']);
    const refused = await browser.post('/auth/passkeys/options').send({});
    expect([refused.status, errorType(refused)]).toEqual([409, 'passkey/limit-reached']);
    expect(await t.ctx.db('credentials').where({ account_id: account.id, type: 'webauthn' })).toHaveLength(maxPasskeysPerAccount);
  });
});
