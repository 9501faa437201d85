import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorRecentSignInSeconds } from '../../src/admin/operator-guard.ts';
import { createPersona, errorType, signIn, startAdminApp, type AdminTestApp } from './harness.ts';

/**
 * The console's actions that amount to signing in as someone else take a sign-in, with a second
 * factor, from the last 15 minutes (operator-guard.ts): a 12-hour console session left open, or a
 * stolen cookie, is not enough for them. Everything else in the console goes on working.
 */
let t: AdminTestApp;

beforeAll(async () => {
  t = await startAdminApp();
});
afterAll(async () => {
  await t?.close();
});

const minutes = (n: number) => n * 60 * 1000;

/** The three gated calls; the impersonation's body is invalid, so a call the guard lets through answers 422. */
async function gated(admin: Awaited<ReturnType<typeof signIn>>, accountId: string, credentialId: string) {
  const links = await admin.get('/api/accounts/password-resets');
  const deletion = await admin.delete(`/api/accounts/${accountId}/credentials/${credentialId}`);
  const impersonation = await admin.post('/api/impersonations').send({});
  return [links, deletion, impersonation].map((res) => [res.status, errorType(res) ?? null]);
}

describe('a recent sign-in for what amounts to signing in as someone else', () => {
  it('is asked once the sign-in is older than 15 minutes; a new sign-in opens them again', async () => {
    expect(operatorRecentSignInSeconds).toBe(15 * 60);
    const adminPersona = await createPersona(t.ctx, { role: 'admin', totp: true });
    const person = await createPersona(t.ctx, { totp: true });
    const totp = (await t.ctx.db('credentials').where({ account_id: person.id, type: 'totp' }).first('id')) as { id: string };
    let admin = await signIn(t, adminPersona);

    t.ctx.advance(minutes(14));
    const fresh = await admin.get('/api/accounts/password-resets');
    expect(fresh.status).toBe(200);
    expect((await admin.post('/api/impersonations').send({})).status).toBe(422);

    t.ctx.advance(minutes(2));
    const refused = ['operator/reauthentication-required'];
    expect(await gated(admin, person.id, totp.id)).toEqual([
      [403, ...refused],
      [403, ...refused],
      [403, ...refused],
    ]);
    // Nothing was removed, and the rest of the console still answers.
    expect(await t.ctx.db('credentials').where({ id: totp.id }).first('id')).toEqual({ id: totp.id });
    expect((await admin.get('/api/accounts/')).status).toBe(200);
    expect((await admin.post(`/api/accounts/${person.id}/sign-out-everywhere`)).status).toBe(200);

    admin = await signIn(t, adminPersona);
    const [links, deletion, impersonation] = await gated(admin, person.id, totp.id);
    expect(links).toEqual([200, null]);
    expect(deletion).toEqual([204, null]);
    expect(impersonation?.[0]).toBe(422);
  });

  it('is asked only of an admin: support gets forbidden there, as before, however recent its sign-in', async () => {
    const support = await signIn(t, await createPersona(t.ctx, { role: 'support', totp: true }));
    const res = await support.get('/api/accounts/password-resets');
    expect([res.status, errorType(res)]).toEqual([403, 'forbidden']);
  });
});
