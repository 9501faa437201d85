import { createHmac, randomBytes } from 'node:crypto';
import request from 'supertest';
import { expect } from 'vitest';
import type { OperatorRole } from '../../src/admin/operators.repository.ts';
import { hashPassword } from '../../src/credentials/password/hashing.ts';
import { newTotpSecret, totpCodeAt } from '../../src/credentials/totp/totp.ts';
import { portalCookieName } from '../../src/session/portal-cookie.ts';
import { createPortalSession } from '../../src/session/portal-session.ts';
import { createAccount } from '../fixtures/accounts.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { BrowserLike } from '../helpers/browser-like.ts';
import type { TestContext } from '../helpers/context.ts';
import type { TestServer } from '../helpers/server.ts';

export const password = 'Operator-Pass-9';

export type AdminTestApp = TestApp;

/** The real app (test/helpers/app.ts), which also hands out its oidc-provider to mint tokens. */
export const startAdminApp = startTestApp;

export type PersonaKind = 'user' | 'stakeholder';

export interface PersonaOptions {
  kind?: PersonaKind;
  role?: OperatorRole;
  /** Enrol an authenticator (TOTP); the sign-in then completes the second factor. */
  totp?: boolean;
  name?: string;
  email?: string;
}

export interface Persona {
  id: string;
  email: string;
  totpSecret: string | null;
}

let passwordHash: Promise<string> | undefined;

/** An account with a password (and TOTP when asked), and an operator role when asked. */
export async function createPersona(ctx: TestContext, options: PersonaOptions = {}): Promise<Persona> {
  const email = options.email ?? `${options.role ?? options.kind ?? 'user'}-${randomBytes(4).toString('hex')}@example.com`;
  const kind = options.kind ?? 'user';
  const [row] = await ctx.db('accounts')
    .insert({ email, name: options.name ?? email.split('@')[0], is_user: kind === 'user', is_stakeholder: kind === 'stakeholder', email_verified: true })
    .returning('id');
  const id = (row as { id: string }).id;
  passwordHash ??= hashPassword(password);
  await ctx.db('credentials').insert({ account_id: id, type: 'password', secret: await passwordHash });
  let totpSecret: string | null = null;
  if (options.totp) {
    totpSecret = newTotpSecret();
    await ctx.db('credentials').insert({ account_id: id, type: 'totp', secret: ctx.secretBox.seal(totpSecret) });
  }
  if (options.role) await ctx.db('operator_roles').insert({ account_id: id, role: options.role });
  return { id, email, totpSecret };
}

/**
 * Signs a persona in through the real login API, as the portal does: email, password, and the
 * authenticator code when the account has TOTP. Answers the browser holding the session cookie.
 */
export async function signIn(t: AdminTestApp, persona: Persona): Promise<request.Agent> {
  const browser = t.agent();
  const started = await browser.post('/auth/login/start').send({ email: persona.email });
  expect(started.body.state).toBe('CredentialsRequired');
  const afterPassword = await browser
    .post('/auth/login/verify-password')
    .send({ session_id: started.body.session_id, email: persona.email, password });
  if (persona.totpSecret) {
    expect(afterPassword.body.state).toBe('MfaRequired');
    const code = await totpCodeAt(persona.totpSecret, t.ctx.now());
    const done = await browser.post('/auth/login/verify-mfa').send({ session_id: afterPassword.body.session_id, totp_code: code });
    expect([done.status, done.body.state]).toEqual([200, 'Done']);
  } else {
    expect([afterPassword.status, afterPassword.body.state]).toEqual([200, 'Done']);
  }
  return browser;
}

/**
 * A browser holding a portal session made directly in the store, for cases the login API cannot
 * produce on demand (e.g. many sessions of one account: a TOTP code is accepted once per step).
 * The cookie is signed as cookie-parser expects (`s:<value>.<HMAC-SHA256, base64, unpadded>`).
 */
export async function sessionBrowser(t: AdminTestApp, persona: Persona, amr: string[]): Promise<request.Agent> {
  const { cookie } = await directSession(t.ctx, persona, amr);
  return t.agent().set('Cookie', `${portalCookieName}=${cookie}`);
}

/** A portal session of `who` made directly in the store, and its cookie value, signed and encoded. */
async function directSession(ctx: TestContext, who: { id: string; email: string }, amr: string[]): Promise<{ id: string; cookie: string }> {
  const session = await createPortalSession(ctx, {
    account_id: who.id,
    email: who.email,
    amr,
    auth_time: Math.floor(ctx.now().getTime() / 1000),
    ip: null,
    user_agent: null,
  });
  return { id: session.id, cookie: encodeURIComponent(signCookie(session.id, ctx.config.cookieSecrets[0]!)) };
}

/** An account on a TestServer (no credentials), with an operator role when given. */
export interface Person {
  id: string;
  email: string;
}

export async function createPerson(server: TestServer, name: string, role?: OperatorRole): Promise<Person> {
  const email = `${name}@example.test`;
  const id = await createAccount(server.ctx.db, { email, name });
  if (role) await server.ctx.db('operator_roles').insert({ account_id: id, role });
  return { id, email };
}

/** A BrowserLike holding a portal session of `who` (the console needs a second factor: amr mfa). */
export async function browserOf(server: TestServer, who: Person, amr = ['pwd', 'mfa']): Promise<{ browser: BrowserLike; sessionId: string }> {
  const { id, cookie } = await directSession(server.ctx, who, amr);
  const browser = new BrowserLike(server.base);
  browser.cookies.set(portalCookieName, cookie);
  return { browser, sessionId: id };
}

export function signCookie(value: string, secret: string): string {
  return `s:${value}.${createHmac('sha256', secret).update(value).digest('base64').replace(/=+$/, '')}`;
}

/** The first detail type of an error answer. */
export function errorType(res: { body: unknown }): string | undefined {
  return (res.body as { detail?: { type: string }[] }).detail?.[0]?.type;
}
