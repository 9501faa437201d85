import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCodeAt } from '../../src/credentials/totp/totp.ts';
import { demoPassword, demoTotpSecrets, seedDemo } from '../../seeds/demo.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { errorType, start } from '../login/journey.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  expect(await seedDemo(t.ctx)).toBe(true);
});
afterAll(async () => {
  await t?.close();
});

async function passwordStep(browser: ReturnType<TestApp['agent']>, email: string) {
  const started = await start(browser, email);
  expect(started.body.state).toBe('CredentialsRequired');
  return browser.post('/auth/login/verify-password').send({ session_id: started.body.session_id, email, password: demoPassword });
}

describe('the seeded demo accounts with TOTP', () => {
  it('mfa@example.com signs in with the password, then a code of the README’s secret', async () => {
    expect(demoTotpSecrets['mfa@example.com'][0]).toBe('NYCKELMFADEMOTOTPSECRETABCDE2345');
    const browser = t.agent();
    const mfa = await passwordStep(browser, 'mfa@example.com');
    expect(mfa.body).toMatchObject({ state: 'MfaRequired', allow_totp_remember: true });
    const code = await totpCodeAt('NYCKELMFADEMOTOTPSECRETABCDE2345', t.ctx.now());
    const done = await browser.post('/auth/login/verify-mfa').send({ session_id: mfa.body.session_id, totp_code: code });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ state: 'Done', redirect_to: '/login/select-tenant' });
    expect((await browser.get('/oauth2/userinfo')).body.email).toBe('mfa@example.com');
  });

  it('operator@example.com signs in with the password and its TOTP', async () => {
    const browser = t.agent();
    const mfa = await passwordStep(browser, 'operator@example.com');
    expect(mfa.body.state).toBe('MfaRequired');
    const code = await totpCodeAt(demoTotpSecrets['operator@example.com'][0], t.ctx.now());
    expect((await browser.post('/auth/login/verify-mfa').send({ session_id: mfa.body.session_id, totp_code: code })).body.state).toBe('Done');
  });

  it('twofactors@example.com keeps the authenticator whose code it gives', async () => {
    const [first, second] = demoTotpSecrets['twofactors@example.com'];
    const browser = t.agent();
    const reset = await passwordStep(browser, 'twofactors@example.com');
    expect(reset.body.state).toBe('TOTPResetRequired');
    const totp = reset.body.available_credentials.filter((c: { type: string }) => c.type === 'totp');
    expect(totp).toHaveLength(2);
    const wrongAccount = await browser.post('/auth/login/merge-mfa').send({ session_id: reset.body.session_id, totp_code: await totpCodeAt(demoTotpSecrets['mfa@example.com'][0], t.ctx.now()) });
    expect(errorType(wrongAccount)).toBe('mfa/invalid');
    const done = await browser.post('/auth/login/merge-mfa').send({ session_id: reset.body.session_id, totp_code: await totpCodeAt(second, t.ctx.now()) });
    expect(done.body.state).toBe('Done');
    const kept = done.body.available_credentials.filter((c: { type: string }) => c.type === 'totp');
    expect(kept).toHaveLength(1);
    const stored = await t.ctx.db('credentials').where({ id: kept[0].id }).first('secret');
    expect(t.ctx.secretBox.open(stored.secret)).toBe(second);
    expect(t.ctx.secretBox.open(stored.secret)).not.toBe(first);
  });
});
