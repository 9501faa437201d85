import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount } from '../login/fixtures.ts';
import { errorOf, googleVerified, locationOf, roundTrip, startLogin } from './journey.ts';
import { startUpstream, type TestUpstream } from './upstream-provider.ts';

/**
 * The upstream ID token's signature is checked against the provider's JWK Set, not only trusted
 * because it came from the token endpoint: one that does not verify signs no one in.
 */
let t: TestApp;
let google: TestUpstream;

beforeAll(async () => {
  google = await startUpstream({ kind: 'google', nyckelOrigin: 'http://127.0.0.1:3000' });
  t = await startTestApp({ env: google.env });
});
afterAll(async () => {
  await t?.close();
  await google?.close();
});

describe('the upstream ID token', () => {
  // Every other upstream test signs in with tokens that verify; here the provider's JWK Set names
  // another key from the start (openid-client keeps the set it fetched once).
  it('is refused (oauth/provider_error) when its signature does not verify against the provider’s keys', async () => {
    const account = await createAccount(t.ctx.db, { password: 'Correct-Horse-42!' });
    google.forgeKeys();
    const browser = t.agent();
    const identity = { account: { sub: 'signature-checked', ...googleVerified(account.email) } };
    const refused = await roundTrip(browser, google, `/auth/login/oauth/google?session_id=${await startLogin(browser, account.email)}`, identity);
    expect(errorOf(locationOf(refused))).toBe('oauth/provider_error');
    // Nothing linked either.
    expect(await t.ctx.db('credentials').where({ account_id: account.id, type: 'oidc' }).first('id')).toBeUndefined();
  });
});
