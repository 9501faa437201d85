import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount } from './fixtures.ts';
import { cookieShape, errorType, setCookies, start } from './journey.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** Two addresses of the same length: one with an account without credentials, one unknown. */
async function pair() {
  const tag = randomBytes(4).toString('hex');
  const known = await createAccount(t.ctx.db, { email: `known-${tag}@example.com`, is_stakeholder: true });
  return { known: known.email, unknown: `nokno-${tag}@example.com` };
}

/** Headers that legitimately differ between two answers (time, body hash, cookie values). */
function comparableHeaders(res: Response): Record<string, unknown> {
  const { date: _date, etag: _etag, 'set-cookie': _cookies, ...rest } = res.headers as Record<string, unknown>;
  return rest;
}

describe('an unknown email looks like a known account without credentials', () => {
  it('Start: same status, body apart from session_id, headers and cookies; one mail each', async () => {
    const { known, unknown } = await pair();
    const a = await start(t.agent(), known);
    const b = await start(t.agent(), unknown);
    expect(a.status).toBe(200);
    expect(b.status).toBe(a.status);
    const neutral = { state: 'OTPRequired', is_user: false, is_stakeholder: false, available_credentials: [], allow_totp_remember: false };
    expect(a.body).toEqual({ ...neutral, session_id: a.body.session_id, email: known });
    expect(b.body).toEqual({ ...neutral, session_id: b.body.session_id, email: unknown });
    expect(Object.keys(a.body).sort()).toEqual(Object.keys(b.body).sort());
    expect(comparableHeaders(b)).toEqual(comparableHeaders(a));
    expect([...setCookies(b).keys()]).toEqual([...setCookies(a).keys()]);
    expect(cookieShape(setCookies(b).get('nyckel_login'))).toEqual(cookieShape(setCookies(a).get('nyckel_login')));

    const codeMail = await t.mail.waitFor(known);
    const notice = await t.mail.waitFor(unknown);
    expect(codeMail.text).toMatch(/\b\d{6}\b/);
    expect(notice.subject).toBe('Sign-in attempt');
    expect(notice.text).toContain('there is no account for it');
    expect(notice.text).not.toMatch(/\b\d{6}\b/);
    expect(t.mail.to(known)).toHaveLength(1);
    expect(t.mail.to(unknown)).toHaveLength(1);
  });

  it('verify-otp, resend and ping answer alike', async () => {
    const { known, unknown } = await pair();
    const answers = [];
    for (const email of [known, unknown]) {
      const browser = t.agent();
      const { body } = await start(browser, email);
      const wrong = await browser.post('/auth/login/verify-otp').send({ session_id: body.session_id, email, otp: '000000' });
      const resend = await browser.post('/auth/login/resend-otp').send({ session_id: body.session_id });
      const ping = await browser.get(`/auth/login/ping?session_id=${body.session_id}`);
      answers.push({
        wrong: [wrong.status, wrong.body],
        resend: [resend.status, { ...resend.body, session_id: '-', email: '-' }],
        ping: [ping.status, { ...ping.body.session, session_id: '-', email: '-' }],
      });
    }
    // A real code could be 000000: one in a million, then the known answer differs; accept that.
    if (answers[0]!.wrong[0] !== 200) expect(answers[1]).toEqual(answers[0]);
    expect(t.mail.to(unknown)).toHaveLength(2);
  });

  it('any code for an unknown email is otp/invalid, and the tries run out the same way', async () => {
    const { unknown } = await pair();
    const browser = t.agent();
    const { body } = await start(browser, unknown);
    const types: (string | undefined)[] = [];
    for (let i = 0; i < 6; i += 1) {
      const otp = String(i).repeat(6);
      types.push(errorType(await browser.post('/auth/login/verify-otp').send({ session_id: body.session_id, email: unknown, otp })));
    }
    expect(types).toEqual(['otp/invalid', 'otp/invalid', 'otp/invalid', 'otp/invalid', 'otp/retries-exceeded', 'otp/retries-exceeded']);
  });

  it('an unknown email locks exactly like a real one', async () => {
    const { unknown } = await pair();
    let last: Response | undefined;
    for (let round = 0; round < 2; round += 1) {
      const browser = t.agent();
      const { body } = await start(browser, unknown);
      for (let i = 0; i < 5; i += 1) {
        last = await browser.post('/auth/login/verify-otp').send({ session_id: body.session_id, email: unknown, otp: '123456' });
      }
    }
    expect([last!.status, errorType(last!)]).toEqual([423, 'account_locked']);
    expect(errorType(await start(t.agent(), unknown))).toBe('account_locked');
  });
});
