import type request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newTotpSecret, totpCodeAt } from '../../src/credentials/totp/totp.ts';
import { listRememberedDevices } from '../../src/login/remembered-device.ts';
import { createPersona, password, signIn, startAdminApp, type AdminTestApp, type Persona } from './harness.ts';

/**
 * A person lost the phone holding their authenticator: an admin deletes the TOTP from the console.
 * The browsers remembered on the strength of that authenticator must not skip the code for the
 * next one, exactly as when the person removes it themselves.
 */
let t: AdminTestApp;
let admin: request.Agent;

beforeAll(async () => {
  t = await startAdminApp();
  admin = await signIn(t, await createPersona(t.ctx, { role: 'admin', totp: true }));
});
afterAll(async () => {
  await t?.close();
});

/** Email and password in a browser; answers the state the login API names next. */
async function passwordStep(browser: request.Agent, persona: Persona) {
  const started = await browser.post('/auth/login/start').send({ email: persona.email });
  return browser.post('/auth/login/verify-password').send({ session_id: started.body.session_id, email: persona.email, password });
}

async function signInRemembering(browser: request.Agent, persona: Persona): Promise<void> {
  const mfa = await passwordStep(browser, persona);
  expect(mfa.body.state).toBe('MfaRequired');
  const code = await totpCodeAt(persona.totpSecret!, t.ctx.now());
  const done = await browser.post('/auth/login/verify-mfa').send({ session_id: mfa.body.session_id, totp_code: code, remember: true });
  expect(done.body.state).toBe('Done');
}

describe('DELETE /api/accounts/{id}/credentials/{cid} of the last TOTP', () => {
  it('revokes the remembered devices: the next sign-in with a new authenticator asks for its code', async () => {
    const person = await createPersona(t.ctx, { totp: true });
    const phone = t.agent();
    await signInRemembering(phone, person);
    expect((await passwordStep(phone, person)).body.state).toBe('Done'); // the device skips the code
    expect(await listRememberedDevices(t.ctx, person.id, undefined)).toHaveLength(1);

    const [totp] = await t.ctx.db('credentials').where({ account_id: person.id, type: 'totp' }).pluck('id');
    expect((await admin.delete(`/api/accounts/${person.id}/credentials/${totp}`)).status).toBe(204);
    expect(await listRememberedDevices(t.ctx, person.id, undefined)).toEqual([]);

    // A new authenticator, written directly: the enrolment path forgets devices on its own, so
    // this checks that the deletion alone did.
    await t.ctx.db('credentials').insert({ account_id: person.id, type: 'totp', secret: t.ctx.secretBox.seal(newTotpSecret()) });
    expect((await passwordStep(phone, person)).body.state).toBe('MfaRequired');
  });
});
