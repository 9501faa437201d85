import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMailer, MailRefusedError, MailUnavailableError } from '../../src/mail/mailer.ts';
import { renderMail } from '../../src/mail/templates.ts';
import { createAccount } from '../fixtures/accounts.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { captureLogs } from '../helpers/log-capture.ts';
import { errorType, start } from '../login/journey.ts';

/**
 * A mail server that refuses an address: for good (550, no such mailbox) the person is told so,
 * 422 `mail_undeliverable`, and can try another address; for now (450, greylisted) it is the
 * mail server's outage, 503 as when it is down. Neither tells whether the address has an account,
 * and no log holds the address, although the mail server's reply quotes it.
 */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

let serial = 0;
/** A fresh address the test mail server refuses `how`. */
function refusedAddress(name: string, how: 'permanent' | 'temporary'): string {
  serial += 1;
  const address = `${name}-${serial}-${Date.now()}@example.com`;
  t.mail.refuse(address, how);
  return address;
}

let logs: ReturnType<typeof captureLogs>;
afterEach(() => logs?.stop());

describe('a recipient the mail server refuses for good', () => {
  it('sign-in answers 422 mail_undeliverable, alike for an account (its code) and an unknown address (the notice)', async () => {
    const known = refusedAddress('refused-account', 'permanent');
    await createAccount(t.ctx.db, { email: known });
    const unknown = refusedAddress('refused-nobody', 'permanent');
    logs = captureLogs(t.ctx.logger);

    const forAccount = await start(t.agent(), known);
    const forNobody = await start(t.agent(), unknown);

    expect([forAccount.status, forAccount.body]).toEqual([422, { detail: [{ type: 'mail_undeliverable', msg: 'The mail server refused mail to this address' }] }]);
    expect([forNobody.status, forNobody.body]).toEqual([forAccount.status, forAccount.body]);
    expect(forNobody.headers['set-cookie']).toEqual(forAccount.headers['set-cookie']);
    expect(t.mail.to(known)).toEqual([]);
    expect(t.mail.to(unknown)).toEqual([]);
    // Logged, for whoever looks after the mail server: what was refused, not whose address.
    const refusals = logs.calls.filter((call) => call.msg === 'mail refused');
    expect(refusals.map((call) => call.fields)).toEqual([
      { error: 'MailRefusedError', code: 'EENVELOPE', command: 'RCPT TO', response_code: 550 },
      { error: 'MailRefusedError', code: 'EENVELOPE', command: 'RCPT TO', response_code: 550 },
    ]);
    expect(logs.text()).not.toContain('@');
    expect(logs.text()).not.toContain('refused-');
  });

  it('resending the code is answered the same way', async () => {
    const email = refusedAddress('refused-resend', 'permanent');
    t.mail.refuse(email, null);
    await createAccount(t.ctx.db, { email });
    const browser = t.agent();
    const started = await start(browser, email);
    expect(started.body.state).toBe('OTPRequired');
    await t.mail.waitFor(email);
    t.mail.refuse(email, 'permanent');
    logs = captureLogs(t.ctx.logger);

    const resent = await browser.post('/auth/login/resend-otp').send({ session_id: started.body.session_id });

    expect([resent.status, errorType(resent)]).toEqual([422, 'mail_undeliverable']);
    expect(logs.messages()).toContain('mail refused');
    expect(logs.text()).not.toContain('@');
  });

  it('"forgot password" answers as usual; the failed mail is logged without the address', async () => {
    const email = refusedAddress('refused-reset', 'permanent');
    await createAccount(t.ctx.db, { email, password: 'Old-Password-1' });
    logs = captureLogs(t.ctx.logger);

    const res = await t.agent().post('/auth/reset/request').send({ email });

    expect([res.status, res.body]).toEqual([200, { status: 'sent' }]);
    // The mail goes out after the answer.
    await vi.waitFor(() => expect(logs.messages()).toContain('reset mail failed'), { timeout: 10_000 });
    const failed = logs.calls.find((call) => call.msg === 'reset mail failed');
    expect(failed?.fields).toEqual({ error: 'MailRefusedError', code: 'EENVELOPE', command: 'RCPT TO', response_code: 550 });
    expect(logs.text()).not.toContain('@');
  });
});

describe('a recipient the mail server puts off (4xx)', () => {
  it('sign-in answers 503 service_unavailable with Retry-After, as when the mail server is down', async () => {
    const email = refusedAddress('greylisted', 'temporary');
    await createAccount(t.ctx.db, { email });
    logs = captureLogs(t.ctx.logger);

    const res = await start(t.agent(), email);

    expect([res.status, errorType(res)]).toEqual([503, 'service_unavailable']);
    expect(res.headers['retry-after']).toBe('5');
    expect(logs.messages()).toContain('dependency unavailable');
    expect(logs.text()).not.toContain('@');
  });
});

describe("the mailer's errors", () => {
  it.each([
    ['permanent', MailRefusedError, 550],
    ['temporary', MailUnavailableError, 450],
  ] as const)('a %s refusal: %o, with the code, command and reply code and nothing that names the address', async (how, type, responseCode) => {
    const email = refusedAddress(`mailer-${how}`, how);
    const mailer = createMailer({ smtpUrl: t.mail.url, from: 'nyckel@example.com', outboxDir: '/nonexistent', logger: pino({ level: 'silent' }) });
    const error: unknown = await mailer.send(renderMail(email, 'en', { kind: 'unknown_account' })).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    await mailer.close();

    expect(error).toBeInstanceOf(type);
    expect(error).toMatchObject({ code: 'EENVELOPE', command: 'RCPT TO', responseCode });
    expect((error as Error).cause).toBeUndefined();
    expect(JSON.stringify(pino.stdSerializers.err(error as Error))).not.toContain('@');
  });
});
