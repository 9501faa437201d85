import type { Response } from 'supertest';
import type request from 'supertest';
import { expect } from 'vitest';
import type { MailServer, ReceivedMail } from '../helpers/mail-server.ts';

export type Browser = request.Agent;

/** The 6-digit code of an email-code mail. */
export function codeFrom(mail: ReceivedMail): string {
  const code = /\b(\d{6})\b/.exec(mail.text)?.[1];
  if (!code) throw new Error(`no code in mail "${mail.subject}"`);
  return code;
}

/** The reset token of a reset-link mail. */
export function tokenFrom(mail: ReceivedMail): string {
  const token = /\/login\/set-password\/([A-Za-z0-9_-]+)/.exec(mail.text)?.[1];
  if (!token) throw new Error(`no reset link in mail "${mail.subject}"`);
  return token;
}

export async function start(browser: Browser, email: string, query = ''): Promise<Response> {
  return browser.post(`/auth/login/start${query}`).send({ email });
}

/** Start and wait for the code mail; returns the session id and the code. */
export async function startWithCode(browser: Browser, mail: MailServer, email: string): Promise<{ sessionId: string; code: string }> {
  const res = await start(browser, email);
  expect(res.status).toBe(200);
  expect(res.body.state).toBe('OTPRequired');
  return { sessionId: res.body.session_id, code: codeFrom(await mail.waitFor(email)) };
}

export async function signInWithPassword(browser: Browser, email: string, password: string, extra: Record<string, unknown> = {}): Promise<Response> {
  const res = await start(browser, email);
  expect(res.body.state).toBe('CredentialsRequired');
  return browser.post('/auth/login/verify-password').send({ session_id: res.body.session_id, email, password, ...extra });
}

/** The first detail type of an error answer. */
export function errorType(res: Response): string | undefined {
  return (res.body as { detail?: { type: string }[] }).detail?.[0]?.type;
}

/** Set-Cookie lines by cookie name. */
export function setCookies(res: Response): Map<string, string> {
  const lines = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  return new Map(lines.map((line) => [line.slice(0, line.indexOf('=')), line]));
}

/** A Set-Cookie line with its value and dates blanked, to compare attributes. */
export function cookieShape(line: string | undefined): string | undefined {
  return line?.replace(/=[^;]*/, '=<value>').replace(/Expires=[^;]+/i, 'Expires=<date>');
}
