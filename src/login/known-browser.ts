import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { CookieOptions, Request } from 'express';
import { normalizeEmail } from '../accounts/accounts.repository.ts';
import type { Config } from '../config/index.ts';
import { derivedKey } from '../crypto/derived-key.ts';
import { authCookieOptions } from '../http/cookies.ts';

/**
 * A known browser: one that has signed in to an email before (OWASP "Slow Down Online Guessing
 * Attacks with Device Cookies"). Every completed sign-in leaves the HttpOnly cookie `nyckel_known`
 * holding a random nonce and a MAC binding it to the email; the email itself is not in it. A
 * known browser's failed attempts count against that browser, not the email (lockout.ts), so
 * whoever guesses at an address from elsewhere locks only the browsers that never signed in to
 * it: the owner goes on signing in from their own. One email per browser: the last sign-in's.
 *
 * No store entry: the MAC proves the cookie was issued for this email, and the nonce names the
 * browser's own failure count. Stolen, it buys its thief no more than the browser's own limit.
 */
export const knownBrowserCookieName = 'nyckel_known';

/** A browser unused this long is a stranger again. */
export const knownBrowserDays = 180;

type KeyContext = { config: Pick<Config, 'encryptionKey'> };

/** Over the normalised address: the login's email and the account row's spelling agree. */
function mac(ctx: KeyContext, email: string, nonce: string): Buffer {
  return createHmac('sha256', derivedKey(ctx.config.encryptionKey, 'nyckel known browser v1')).update(`${normalizeEmail(email)}\n${nonce}`).digest();
}

/** A new cookie value for a browser that just signed in to the email. */
export function issueKnownBrowser(ctx: KeyContext, email: string): string {
  const nonce = randomBytes(16).toString('base64url');
  return `${nonce}.${mac(ctx, email, nonce).toString('base64url')}`;
}

/**
 * The name of this browser's failure count when its cookie was issued for this email, else null
 * (no cookie, another email's, tampered). The MAC is compared in constant time.
 */
export function knownBrowserFor(ctx: KeyContext, email: string, cookie: string | undefined): string | null {
  if (!cookie) return null;
  const [nonce, given, ...rest] = cookie.split('.');
  if (!nonce || !given || rest.length > 0 || nonce.length > 64) return null;
  const expected = mac(ctx, email, nonce);
  const actual = Buffer.from(given, 'base64url');
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return null;
  return createHash('sha256').update(nonce).digest('base64url');
}

/** The raw cookie; its own MAC authenticates it, so it is not signed a second time. */
export function knownBrowserCookie(req: Request): string | undefined {
  const value = (req.cookies as Record<string, unknown> | undefined)?.[knownBrowserCookieName];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Sent on every path, unlike the other sign-in cookies (Path=/auth): the profile's password change
 * (/api/accounts/password) counts failures by it too. HttpOnly; it opens nothing by itself.
 */
export function knownBrowserCookieOptions(config: Config): CookieOptions {
  return { ...authCookieOptions(config, knownBrowserDays * 86_400), signed: false, path: '/' };
}
