import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { normalizeEmail } from '../accounts/accounts.repository.ts';
import type { Config } from '../config/index.ts';
import { derivedKey } from '../crypto/derived-key.ts';
import { authCookieOptions } from '../http/cookies.ts';

/**
 * A known browser: one that has signed in to an email before (OWASP "Slow Down Online Guessing
 * Attacks with Device Cookies"). Every completed sign-in leaves the HttpOnly cookie `nyckel_known`
 * holding a random nonce, the time it was issued and a MAC binding both to the email; the email
 * itself is not in it. A
 * known browser's failed attempts count against that browser, not the email (lockout.ts), so
 * whoever guesses at an address from elsewhere locks only the browsers that never signed in to
 * it: the owner goes on signing in from their own. One email per browser: the last sign-in's.
 *
 * No store entry per browser: the MAC proves the cookie was issued for this email, and the
 * nonce names the browser's own failure count. Stolen, it buys its thief no more than the
 * browser's own limit, for no longer than `knownBrowserDays` after it was issued (checked here,
 * not left to the browser), and only until the address's known browsers are forgotten (a
 * password reset or signing out everywhere: lockout.ts forgetKnownBrowsers).
 */
/**
 * `__Host-` when cookies are Secure (the browser then takes it only from this exact origin, over
 * HTTPS, with Path=/ and no Domain): a sibling subdomain cannot plant a cookie of its own that
 * would shadow the owner's. Plain HTTP on loopback (development, tests) cannot use the prefix.
 */
export function knownBrowserCookieName(config: Pick<Config, 'secureCookies'>): string {
  return config.secureCookies ? '__Host-nyckel_known' : 'nyckel_known';
}

/** A browser unused this long is a stranger again. */
export const knownBrowserDays = 180;

type KeyContext = { config: Pick<Config, 'encryptionKey'> };

/** Over the normalised address: the login's email and the account row's spelling agree. */
function mac(ctx: KeyContext, email: string, nonce: string): Buffer {
  return createHmac('sha256', derivedKey(ctx.config.encryptionKey, 'nyckel known browser v1')).update(`${normalizeEmail(email)}\n${nonce}`).digest();
}

/**
 * A new cookie value for a browser that just signed in to the email: `<nonce>.<issued, ms base 36>.<mac>`.
 * `nonce` renews a browser's cookie under the name it had (its failure count and budget go on).
 */
export function issueKnownBrowser(ctx: KeyContext & { now(): Date }, email: string, nonce = randomBytes(16).toString('base64url')): string {
  const issued = ctx.now().getTime().toString(36);
  return `${nonce}.${issued}.${mac(ctx, email, `${nonce}.${issued}`).toString('base64url')}`;
}

export interface KnownBrowser {
  /** The name of the browser's failure count. */
  name: string;
  /** When its cookie was issued, ms. */
  issuedAt: number;
}

/**
 * This browser when its cookie was issued for this email less than `knownBrowserDays` ago, else
 * null (no cookie, another email's, tampered, too old). The MAC is compared in constant time.
 */
export function knownBrowserFor(ctx: KeyContext & { now(): Date }, email: string, cookie: string | undefined): KnownBrowser | null {
  if (!cookie) return null;
  const [nonce, issued, given, ...rest] = cookie.split('.');
  if (!nonce || !issued || !given || rest.length > 0 || nonce.length > 64 || !/^[0-9a-z]{1,12}$/.test(issued)) return null;
  const expected = mac(ctx, email, `${nonce}.${issued}`);
  const actual = Buffer.from(given, 'base64url');
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return null;
  const issuedAt = parseInt(issued, 36);
  if (ctx.now().getTime() - issuedAt >= knownBrowserDays * 86_400_000) return null;
  return { name: createHash('sha256').update(nonce).digest('base64url'), issuedAt };
}

/** The raw cookie; its own MAC authenticates it, so it is not signed a second time. */
export function knownBrowserCookie(req: Request, config: Pick<Config, 'secureCookies'>): string | undefined {
  const value = (req.cookies as Record<string, unknown> | undefined)?.[knownBrowserCookieName(config)];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Sets the cookie. Sent on every path, unlike the other sign-in cookies over plain HTTP
 * (Path=/auth): the profile's password change (/api/accounts/password) counts failures by it too, and `__Host-`
 * requires Path=/. HttpOnly; it opens nothing by itself.
 */
export function setKnownBrowserCookie(res: Response, config: Config, value: string): void {
  res.cookie(knownBrowserCookieName(config), value, { ...authCookieOptions(config, knownBrowserDays * 86_400), signed: false, path: '/' });
}
