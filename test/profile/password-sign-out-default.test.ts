import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMailServer, type MailServer } from '../helpers/mail-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { call, getJson, PASSWORD, person, signedInBrowser } from './helpers.ts';

let server: TestServer;
let mail: MailServer;

beforeAll(async () => {
  mail = await startMailServer();
  server = await startTestServer({ smtpUrl: mail.url });
});

afterAll(async () => {
  await server?.close();
  await mail?.close();
});

const NEW_PASSWORD = 'Brand-New-Secret-42';

describe('POST /api/accounts/password: other sessions end unless the person asks to keep them', () => {
  it('without sign_out_others, the other sessions are signed out and this one is kept', async () => {
    const { id, email } = await person(server);
    const other = await signedInBrowser(server, email);
    const browser = await signedInBrowser(server, email);

    const res = await call(browser, 'POST', '/api/accounts/password', { current_password: PASSWORD, new_password: NEW_PASSWORD });
    expect(res).toEqual({ status: 200, body: { signed_out: 1 } });
    expect((await getJson(other, '/oauth2/userinfo')).status).toBe(401);
    expect((await getJson(browser, '/oauth2/userinfo')).status).toBe(200);
    const audit = await server.ctx.db('audit_events').where({ target_account_id: id, action: 'password.changed' }).pluck('details');
    expect(audit).toEqual([{ via: 'profile', sign_out_others: true }]);
  });

  it('sign_out_others: false keeps them', async () => {
    const { email } = await person(server);
    const other = await signedInBrowser(server, email);
    const browser = await signedInBrowser(server, email);

    const res = await call(browser, 'POST', '/api/accounts/password', { current_password: PASSWORD, new_password: NEW_PASSWORD, sign_out_others: false });
    expect(res).toEqual({ status: 200, body: { signed_out: 0 } });
    expect((await getJson(other, '/oauth2/userinfo')).status).toBe(200);
  });
});
