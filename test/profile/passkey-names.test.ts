import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { errorType, type Browser } from '../login/journey.ts';
import { authenticatorFor } from '../passkeys/helpers.ts';
import { createTotpAccount, signIn } from '../totp/helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

async function signedIn() {
  const account = await createTotpAccount(t.ctx, { totp: 0 });
  const browser = t.agent();
  await signIn(t.ctx, browser, account);
  return { account, browser };
}

/** Options, the authenticator's answer, then verify with `name`. */
async function register(browser: Browser, name: unknown) {
  const options = await browser.post('/auth/passkeys/options').send({});
  expect(options.status).toBe(200);
  const { response } = authenticatorFor(t).register(options.body);
  return { response, res: await browser.post('/auth/passkeys/verify').send({ response, name }) };
}

const passkeysOf = (accountId: string) => t.ctx.db('credentials').where({ account_id: accountId, type: 'webauthn' }).select('data');

/** Names that would reorder or hide text where a passkey's name is shown, or break a log line. */
const controlNames = [
  ['a right-to-left override', 'Work\u202Egnp.exe'],
  ['a left-to-right override', 'Work\u202Dlaptop'],
  ['a right-to-left embedding', '\u202BWork laptop'],
  ['a first-strong isolate', 'Work\u2068laptop\u2069'],
  ['a pop directional formatting', 'Work laptop\u202C'],
  ['a NUL', 'Work\u0000laptop'],
  ['a newline', 'Work\nAdmin'],
  ['a C1 control (NEL)', 'Work\u0085laptop'],
  ['DEL', 'Work\u007Flaptop'],
];

describe('POST /auth/passkeys/verify: the passkey name follows the display name rules', () => {
  it.each(controlNames)('refuses a name with %s, as the display name does, and stores nothing', async (_what, name) => {
    const { account, browser } = await signedIn();
    const { res } = await register(browser, name);
    expect([res.status, errorType(res)]).toEqual([422, 'validation_error']);
    expect(res.body.detail[0]).toMatchObject({ msg: 'Name cannot contain control characters', loc: ['name'] });
    // The same value as a display name: the same type and message.
    const asDisplayName = await browser.post('/api/accounts/settings').send({ key: 'name', value: name });
    expect([asDisplayName.status, asDisplayName.body.detail[0].type, asDisplayName.body.detail[0].msg]).toEqual([422, res.body.detail[0].type, res.body.detail[0].msg]);
    expect(await passkeysOf(account.id)).toEqual([]);
  });

  it('a refused name does not use up the challenge: the same answer with a clean name registers', async () => {
    const { account, browser } = await signedIn();
    const { response, res } = await register(browser, 'Evil\u202Eyek');
    expect(res.status).toBe(422);
    const retried = await browser.post('/auth/passkeys/verify').send({ response, name: 'Work laptop' });
    expect([retried.status, retried.body.name]).toEqual([201, 'Work laptop']);
    expect((await passkeysOf(account.id)).map((row) => row.data.name)).toEqual(['Work laptop']);
  });

  // Each registration from a new account: a second passkey needs a sign-in that proved a second factor.
  it.each([
    ['trimmed and NFC-normalised ("Å" sent as A + combining ring)', '  A\u030Asa’s key  ', 'Åsa’s key'],
    ['64 characters counted as code points, as the display name counts them', '🔑'.repeat(64), '🔑'.repeat(64)],
    ['"Passkey" for an empty name', '', 'Passkey'],
    ['"Passkey" for a blank name', '   ', 'Passkey'],
    ['"Passkey" for a null name', null, 'Passkey'],
    ['"Passkey" without a name', undefined, 'Passkey'],
  ])('stores the name %s', async (_what, name, stored) => {
    const { account, browser } = await signedIn();
    const { res } = await register(browser, name);
    expect([res.status, res.body.name]).toEqual([201, stored]);
    expect((await passkeysOf(account.id)).map((row) => row.data.name)).toEqual([stored]);
  });

  it('refuses more than 64 characters', async () => {
    const { account, browser } = await signedIn();
    const { res } = await register(browser, 'x'.repeat(65));
    expect([res.status, errorType(res), res.body.detail[0].msg]).toEqual([422, 'validation_error', 'Name must be at most 64 characters']);
    expect(await passkeysOf(account.id)).toEqual([]);
  });
});

describe('POST /auth/passkeys/options needs a JSON request, like every state-changing profile POST', () => {
  it('refuses a form or text body with 415 before creating a challenge', async () => {
    const { browser } = await signedIn();
    for (const [type, body] of [['form', 'a=1'], ['text/plain', '{}']] as const) {
      const res = await browser.post('/auth/passkeys/options').type(type).send(body);
      expect([type, res.status, errorType(res)]).toEqual([type, 415, 'unsupported_media_type']);
    }
    // No challenge is pending: an answer made up for one is refused as expired.
    const { response } = authenticatorFor(t).register({ challenge: 'AAAA', rp: {} });
    const res = await browser.post('/auth/passkeys/verify').send({ response });
    expect([res.status, errorType(res)]).toEqual([410, 'passkey/challenge-expired']);
  });

  it('accepts the portal’s call: a JSON content type and no body at all (Content-Length: 0)', async () => {
    const { browser } = await signedIn();
    const res = await browser.post('/auth/passkeys/options').set('Content-Type', 'application/json');
    expect(res.status).toBe(200);
    expect(res.body.challenge).toEqual(expect.any(String));
  });
});
