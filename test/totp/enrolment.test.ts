import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCodeAt } from '../../src/credentials/totp/totp.ts';
import { qrCodePng } from '../../src/profile/two-factor.service.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { errorType } from '../login/journey.ts';
import { codeAt, createTotpAccount, nextStep, passwordStep, signIn, verifyMfa, wrongCode } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

type Browser = ReturnType<TestApp['agent']>;

/** A signed-in browser of a fresh account without TOTP (password only). */
async function signedIn(options: Parameters<typeof createTotpAccount>[1] = { totp: 0 }) {
  const account = await createTotpAccount(t.ctx, options);
  const browser = t.agent();
  await signIn(t.ctx, browser, account);
  return { account, browser };
}

const activate = (browser: Browser, body: unknown) => browser.post('/auth/tfa/activate').send(body as object);
const totpRows = (accountId: string) => t.ctx.db('credentials').where({ account_id: accountId, type: 'totp' }).orderBy('created_at').select('id', 'secret');
const now = () => t.ctx.now();

describe('TOTP enrolment from the profile', () => {
  it('setup gives a Base32 secret and its otpauth URI; asking again gives the same pending secret', async () => {
    const { account, browser } = await signedIn();
    const setup = await browser.get('/auth/tfa/setup');
    expect(setup.status).toBe(200);
    expect(setup.headers['cache-control']).toBe('no-store');
    const { secret, otpauth_uri } = setup.body;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauth_uri).toBe(`otpauth://totp/Nyckel:${encodeURIComponent(account.email)}?secret=${secret}&issuer=Nyckel`);
    expect((await browser.get('/auth/tfa/setup')).body).toEqual(setup.body);
  });

  it('the QR code is a PNG of the same pending URI, never cached', async () => {
    const { browser } = await signedIn();
    const [qr, setup] = await Promise.all([browser.get('/auth/qrcode').buffer(true), browser.get('/auth/tfa/setup')]);
    expect(qr.status).toBe(200);
    expect(qr.headers['content-type']).toBe('image/png');
    expect(qr.headers['cache-control']).toBe('no-store');
    const png = qr.body as Buffer;
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.equals(await qrCodePng(setup.body.otpauth_uri))).toBe(true);
  });

  it('activates with a wrong code refused (totp/invalid), then the right one; the secret is sealed at rest', async () => {
    const { account, browser } = await signedIn();
    const { secret } = (await browser.get('/auth/tfa/setup')).body;
    const wrong = await activate(browser, { totp_code: await wrongCode(t.ctx, secret) });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ detail: [{ type: 'totp/invalid', msg: 'Invalid code. Please try again.' }] });
    expect(await totpRows(account.id)).toEqual([]);

    // The code of this moment's step, kept: the replay below must be of this step even when the
    // real clock crosses into the next one meanwhile.
    const activatedAt = now();
    const right = await activate(browser, { totp_code: await totpCodeAt(secret, activatedAt) });
    expect(right.status).toBe(200);
    expect(right.body).toEqual({ id: expect.any(String), type: 'totp' });
    const rows = await totpRows(account.id);
    expect(rows.map((r) => r.id)).toEqual([right.body.id]);
    expect(rows[0].secret).not.toContain(secret);
    expect(t.ctx.secretBox.open(rows[0].secret)).toBe(secret);
    const audit = await t.ctx.db('audit_events').where({ target_account_id: account.id, action: 'totp.activated' });
    expect(audit.map((a) => a.details)).toEqual([{ credential_id: right.body.id, replaced_credential_ids: [] }]);
    expect(JSON.stringify(audit)).not.toContain(secret);

    // The pending secret is used up; the new secret is what the next sign-in asks for.
    expect(errorType(await activate(browser, { totp_code: await totpCodeAt(secret, now()) }))).toBe('totp/no-pending');
    const next = t.agent();
    const mfa = await passwordStep(next, account.email);
    // The code typed at activation cannot be replayed at a sign-in.
    expect(errorType(await verifyMfa(next, mfa.body.session_id, await totpCodeAt(secret, activatedAt)))).toBe('mfa/invalid');
    nextStep(t.ctx);
    expect((await verifyMfa(next, mfa.body.session_id, await totpCodeAt(secret, now()))).body.state).toBe('Done');
  });

  it('an empty or missing code is totp/required (422) with the spec message', async () => {
    const { browser } = await signedIn();
    await browser.get('/auth/tfa/setup');
    for (const body of [{}, { totp_code: '' }, { totp_code: '   ' }, { totp_code: null }]) {
      const res = await activate(browser, body);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ detail: [{ type: 'totp/required', msg: 'Please enter the TOTP code' }] });
    }
    const typed = await activate(browser, { totp_code: 123456 });
    expect([typed.status, errorType(typed)]).toEqual([422, 'validation_error']);
    // Only JSON: a cross-site form could not carry a code anyway, and is refused before it is read.
    const form = await browser.post('/auth/tfa/activate').type('form').send({ totp_code: '123456' });
    expect([form.status, errorType(form)]).toEqual([415, 'unsupported_media_type']);
  });

  it('accepts the code with the space authenticator apps show', async () => {
    const { browser } = await signedIn();
    const { secret } = (await browser.get('/auth/tfa/setup')).body;
    const code = await totpCodeAt(secret, now());
    expect((await activate(browser, { totp_code: `${code.slice(0, 3)} ${code.slice(3)}` })).status).toBe(200);
  });

  it('without a pending secret activation is totp/no-pending (409)', async () => {
    const { browser } = await signedIn();
    const res = await activate(browser, { totp_code: '123456' });
    expect(res.status).toBe(409);
    expect(errorType(res)).toBe('totp/no-pending');
  });

  it('the pending secret belongs to the portal session: another session of the account cannot activate it', async () => {
    const { account, browser } = await signedIn();
    const { secret } = (await browser.get('/auth/tfa/setup')).body;
    const other = t.agent();
    await signIn(t.ctx, other, account);
    expect(errorType(await activate(other, { totp_code: await totpCodeAt(secret, now()) }))).toBe('totp/no-pending');
  });

  it('Re-register replaces: the new authenticator is the only TOTP credential, the old one stops working', async () => {
    const account = await createTotpAccount(t.ctx);
    const browser = t.agent();
    await signIn(t.ctx, browser, account);
    const { secret } = (await browser.get('/auth/tfa/setup')).body;
    const res = await activate(browser, { totp_code: await totpCodeAt(secret, now()) });
    expect(res.status).toBe(200);
    expect((await totpRows(account.id)).map((r) => r.id)).toEqual([res.body.id]);
    const audit = await t.ctx.db('audit_events').where({ target_account_id: account.id, action: 'totp.activated' }).first();
    expect(audit.details.replaced_credential_ids).toEqual([account.totpIds[0]]);

    nextStep(t.ctx);
    const next = t.agent();
    const mfa = await passwordStep(next, account.email);
    expect(errorType(await verifyMfa(next, mfa.body.session_id, await codeAt(t.ctx, account.secrets[0]!)))).toBe('mfa/invalid');
    expect((await verifyMfa(next, mfa.body.session_id, await totpCodeAt(secret, now()))).body.state).toBe('Done');
  });

  it('Re-register forgets the remembered devices', async () => {
    const account = await createTotpAccount(t.ctx);
    const browser = t.agent();
    const mfa = await passwordStep(browser, account.email);
    expect((await verifyMfa(browser, mfa.body.session_id, await codeAt(t.ctx, account.secrets[0]!), true)).body.state).toBe('Done');
    expect((await browser.get('/auth/tfa/devices')).body.devices).toHaveLength(1);
    const { secret } = (await browser.get('/auth/tfa/setup')).body;
    expect((await activate(browser, { totp_code: await totpCodeAt(secret, now()) })).status).toBe(200);
    expect((await browser.get('/auth/tfa/devices')).body.devices).toEqual([]);
    expect((await passwordStep(browser, account.email)).body.state).toBe('MfaRequired');
  });

  it('issues a secret only within 5 minutes of the sign-in: after 6 minutes setup and QR code are 403 reauthentication_required', async () => {
    const { browser } = await signedIn();
    t.ctx.advance(6 * 60_000);
    for (const res of [await browser.get('/auth/tfa/setup'), await browser.get('/auth/qrcode')]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: [{ type: 'reauthentication_required', msg: 'Please sign in again to change how you sign in' }] });
    }
    expect(errorType(await activate(browser, { totp_code: '123456' }))).toBe('totp/no-pending');
  });

  it('activates a secret issued within the 5 minutes after they have passed: the scanned secret is kept, its code still required', async () => {
    const { account, browser } = await signedIn();
    const { secret } = (await browser.get('/auth/tfa/setup')).body;
    t.ctx.advance(6 * 60_000);
    expect(errorType(await activate(browser, { totp_code: await wrongCode(t.ctx, secret) }))).toBe('totp/invalid');
    const res = await activate(browser, { totp_code: await totpCodeAt(secret, now()) });
    expect([res.status, res.body]).toEqual([200, { id: expect.any(String), type: 'totp' }]);
    expect((await totpRows(account.id)).map((r) => t.ctx.secretBox.open(r.secret))).toEqual([secret]);
  });

  it('needs a signed-in person (401 unauthorized) and our origin for activation', async () => {
    for (const res of [await t.agent().get('/auth/tfa/setup'), await t.agent().get('/auth/qrcode'), await activate(t.agent(), { totp_code: '123456' })]) {
      expect([res.status, errorType(res)]).toEqual([401, 'unauthorized']);
    }
    const { browser } = await signedIn();
    const crossSite = await browser.post('/auth/tfa/activate').set('Origin', 'https://evil.example').send({ totp_code: '123456' });
    expect([crossSite.status, errorType(crossSite)]).toEqual([403, 'cross_site_request']);
  });
});
