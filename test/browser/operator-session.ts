import { createHmac, randomBytes } from 'node:crypto';
import type { BrowserContext } from 'playwright-core';
import { portalCookieName } from '../../src/session/portal-cookie.ts';
import { createPortalSession } from '../../src/session/portal-session.ts';
import { createAccount } from '../fixtures/accounts.ts';
import type { BrowserHarness } from './harness.ts';

/**
 * Signs a cookie value the way cookie-parser reads it (cookie-signature):
 * `s:` + value + `.` + HMAC-SHA256(value) in base64 without padding.
 */
export function signCookie(value: string, secret: string): string {
  return `s:${value}.${createHmac('sha256', secret).update(value).digest('base64').replace(/=+$/, '')}`;
}

/** Hands the browser the signed `nyckel_session` cookie of a portal session, as the server sets it. */
export async function addPortalCookie(h: BrowserHarness, context: BrowserContext, sessionId: string): Promise<void> {
  const secret = h.server.ctx.config.cookieSecrets[0];
  if (!secret) throw new Error('the test config has no cookie secret');
  await context.addCookies([{ name: portalCookieName, value: encodeURIComponent(signCookie(sessionId, secret)), url: h.base, httpOnly: true, sameSite: 'Lax' }]);
}

/**
 * An operator (admin role unless told) signed in with a second factor. The console needs an
 * operator role and a session whose amr proves a second factor; driving /login through password
 * and TOTP is the sign-in journeys' job, so this creates the portal session directly in the store
 * (amr pwd + otp + mfa, just now) and hands the browser its cookie. `amr: ['pwd']` makes a
 * password-only sign-in instead.
 */
export async function signInAsOperator(
  h: BrowserHarness,
  context: BrowserContext,
  { amr = ['pwd', 'otp', 'mfa'], role = 'admin', name = 'Olle Operator', password }: { amr?: string[]; role?: 'admin' | 'support'; name?: string; password?: string } = {},
): Promise<{ email: string; accountId: string }> {
  const email = `operator-${randomBytes(4).toString('hex')}@example.test`;
  const accountId = await createAccount(h.server.ctx.db, { email, name, ...(password && { password }) });
  await h.server.ctx.db('operator_roles').insert({ account_id: accountId, role });
  const session = await createPortalSession(h.server.ctx, { account_id: accountId, email, amr, auth_time: Math.floor(Date.now() / 1000), ip: null, user_agent: null });
  await addPortalCookie(h, context, session.id);
  return { email, accountId };
}
