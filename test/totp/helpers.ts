import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { expect } from 'vitest';
import { newTotpSecret, totpCodeAt, totpPeriodSeconds } from '../../src/credentials/totp/totp.ts';
import { hashPassword } from '../../src/credentials/password/hashing.ts';
import type { TestContext } from '../helpers/context.ts';
import { start, type Browser } from '../login/journey.ts';

export const password = 'Correct-Horse-9';
const stepMs = totpPeriodSeconds * 1000;

export interface TotpAccount {
  id: string;
  email: string;
  /** Base32 seeds, in the order of `totpIds`. */
  secrets: string[];
  totpIds: string[];
  passwordId: string | null;
}

export interface TotpAccountOptions {
  email?: string;
  /** Default true. */
  password?: boolean;
  /** Number of TOTP credentials (fresh secrets), default 1; or the seeds themselves. */
  totp?: number | string[];
  is_user?: boolean;
  is_stakeholder?: boolean;
  oidc?: string[];
  webauthn?: number;
  operator?: boolean;
}

let hash: Promise<string> | undefined;

/** An account written straight to the database, its TOTP seeds sealed with the app's key as the seeds do. */
export async function createTotpAccount(ctx: TestContext, options: TotpAccountOptions = {}): Promise<TotpAccount> {
  const email = options.email ?? `totp-${randomBytes(4).toString('hex')}@example.com`;
  const [row] = await ctx.db('accounts')
    .insert({ email, name: email.split('@')[0], is_user: options.is_user ?? true, is_stakeholder: options.is_stakeholder ?? false, email_verified: true })
    .returning('id');
  const id = (row as { id: string }).id;
  let passwordId: string | null = null;
  if (options.password ?? true) {
    hash ??= hashPassword(password);
    const [p] = await ctx.db('credentials').insert({ account_id: id, type: 'password', secret: await hash }).returning('id');
    passwordId = (p as { id: string }).id;
  }
  for (const provider of options.oidc ?? []) {
    await ctx.db('credentials').insert({ account_id: id, type: 'oidc', provider, subject: `${provider}:${randomBytes(6).toString('hex')}` });
  }
  for (let i = 0; i < (options.webauthn ?? 0); i += 1) {
    await ctx.db('credentials').insert({ account_id: id, type: 'webauthn', subject: randomBytes(16).toString('base64url'), public_key: randomBytes(32) });
  }
  const secrets = Array.isArray(options.totp) ? options.totp : Array.from({ length: options.totp ?? 1 }, () => newTotpSecret());
  const totpIds: string[] = [];
  for (const secret of secrets) {
    // Distinct created_at so "the first" and "the second" credential are well defined.
    const [t] = await ctx.db('credentials')
      .insert({ account_id: id, type: 'totp', secret: ctx.secretBox.seal(secret), created_at: new Date(Date.now() + totpIds.length) })
      .returning('id');
    totpIds.push((t as { id: string }).id);
  }
  if (options.operator) await ctx.db('operator_roles').insert({ account_id: id, role: 'admin' });
  return { id, email, secrets, totpIds, passwordId };
}

/** The code of `secret` at the injected clock, `steps` time steps away. */
export function codeAt(ctx: TestContext, secret: string, steps = 0): Promise<string> {
  return totpCodeAt(secret, new Date(ctx.now().getTime() + steps * stepMs));
}

/** A 6-digit code that is valid at none of the accepted steps (-1, 0, +1). */
export async function wrongCode(ctx: TestContext, secret: string): Promise<string> {
  const valid = new Set(await Promise.all([-2, -1, 0, 1, 2].map((s) => codeAt(ctx, secret, s))));
  let candidate = Number(await codeAt(ctx, secret));
  let code: string;
  do {
    candidate = (candidate + 1) % 1_000_000;
    code = String(candidate).padStart(6, '0');
  } while (valid.has(code));
  return code;
}

/**
 * Moves the injected clock forward to 10 s into a time step, so a test that steps ±1 or ±2
 * cannot straddle a step boundary while it runs.
 */
export function alignToStep(ctx: TestContext): void {
  const into = ctx.now().getTime() % stepMs;
  ctx.advance((10_000 - into + stepMs) % stepMs);
}

/** Moves the injected clock to the next time step (a fresh code for the same credential). */
export function nextStep(ctx: TestContext): void {
  ctx.advance(stepMs);
}

/** Start + verify-password; expects the given state (MfaRequired by default). */
export async function passwordStep(browser: Browser, email: string, expected = 'MfaRequired', extra: Record<string, unknown> = {}): Promise<Response> {
  const started = await start(browser, email);
  expect(started.body.state).toBe('CredentialsRequired');
  const res = await browser.post('/auth/login/verify-password').send({ session_id: started.body.session_id, email, password, ...extra });
  expect([res.status, res.body.state]).toEqual([200, expected]);
  return res;
}

export function verifyMfa(browser: Browser, sessionId: string, code: string, remember?: boolean): Promise<Response> {
  return browser.post('/auth/login/verify-mfa').send({ session_id: sessionId, totp_code: code, ...(remember === undefined ? {} : { remember }) });
}

/** A full sign-in (password, then the TOTP code when asked); the browser holds the portal session. */
export async function signIn(ctx: TestContext, browser: Browser, account: TotpAccount): Promise<Response> {
  const started = await start(browser, account.email);
  const first = await browser.post('/auth/login/verify-password').send({ session_id: started.body.session_id, email: account.email, password });
  if (first.body.state !== 'MfaRequired') {
    expect(first.body.state).toBe('Done');
    return first;
  }
  const done = await verifyMfa(browser, first.body.session_id, await codeAt(ctx, account.secrets[0]!));
  expect([done.status, done.body.state]).toEqual([200, 'Done']);
  return done;
}
