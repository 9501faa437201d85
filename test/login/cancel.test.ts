import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount } from './fixtures.ts';
import { errorType, setCookies, start } from './journey.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const PASSWORD = 'Correct-Horse-9';

describe('POST /auth/login/cancel', () => {
  it("ends the sign-in: 204, neither a reload nor the next call resumes it, and the browser's other tab goes on", async () => {
    const account = await createAccount(t.ctx.db, { password: PASSWORD });
    const browser = t.agent();
    const other = (await start(browser, account.email, '?interaction=other-tab')).body;
    const { body } = await start(browser, account.email);
    expect(body.state).toBe('CredentialsRequired');

    const res = await browser.post('/auth/login/cancel').send({ session_id: body.session_id });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    // The login cookie stays: it is the browser's, and the other tab's sign-in needs it.
    expect(setCookies(res).get('nyckel_login')).toBeUndefined();

    // A reload pings without session_id (the page's latest) or with it: nothing to resume either way.
    expect((await browser.get('/auth/login/ping')).body).toEqual({ session: null, email: null });
    expect((await browser.get(`/auth/login/ping?session_id=${body.session_id}`)).body).toEqual({ session: null, email: null });
    const verify = await browser.post('/auth/login/verify-password').send({ session_id: body.session_id, email: account.email, password: PASSWORD });
    expect(errorType(verify)).toBe('login_session_missing');

    const otherTab = await browser.post('/auth/login/verify-password').send({ session_id: other.session_id, email: account.email, password: PASSWORD });
    expect(otherTab.body.state).toBe('Done');
  });

  it("leaves another browser's session alone, and answers an unknown or foreign id the same 204", async () => {
    const account = await createAccount(t.ctx.db, { password: PASSWORD });
    const owner = t.agent();
    const { body } = await start(owner, account.email);

    const stranger = t.agent();
    await start(stranger, account.email);
    const foreign = await stranger.post('/auth/login/cancel').send({ session_id: body.session_id });
    const unknown = await t.agent().post('/auth/login/cancel').send({ session_id: 'does-not-exist' });
    expect([foreign.status, foreign.text]).toEqual([204, '']);
    expect([unknown.status, unknown.text]).toEqual([204, '']);

    expect((await owner.get(`/auth/login/ping?session_id=${body.session_id}`)).body.session).toMatchObject({ session_id: body.session_id, state: 'CredentialsRequired' });
    const verify = await owner.post('/auth/login/verify-password').send({ session_id: body.session_id, email: account.email, password: PASSWORD });
    expect(verify.body.state).toBe('Done');
  });

  it('validates its body and refuses a foreign Origin, like the other sign-in calls', async () => {
    const missing = await t.agent().post('/auth/login/cancel').send({});
    expect([missing.status, errorType(missing)]).toEqual([422, 'validation_error']);
    const crossSite = await t.agent().set('Origin', 'https://evil.example').post('/auth/login/cancel').send({ session_id: 'x' });
    expect([crossSite.status, errorType(crossSite)]).toEqual([403, 'cross_site_request']);
  });
});
