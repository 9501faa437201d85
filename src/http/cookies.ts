import type { CookieOptions, Request, Response } from 'express';
import type { Config } from '../config/index.ts';

/**
 * The cookies of the sign-in API: signed, HttpOnly, and SameSite=Lax so an upstream provider's
 * redirect back (a top-level GET) still carries them. They differ only in how long they live.
 *
 * When cookies are Secure (an HTTPS issuer) each is `__Host-<name>` with Path=/ and no Domain: the
 * browser then takes it only from this exact origin, so a sibling subdomain (evil.example.com
 * next to id.example.com) cannot plant its own signed values for `Domain=example.com`, values it
 * can get from Nyckel for its own sign-in. Planting a login and an upstream cookie would finish
 * the attacker's Google sign-in in the victim's browser (login CSRF). Only the prefixed name is
 * read there. Over plain HTTP (development, tests) the prefix is not allowed: the bare name, read
 * only under /auth.
 */
export interface AuthCookie {
  /** The name over plain HTTP; see authCookieName. */
  name: 'nyckel_login' | 'nyckel_upstream' | 'nyckel_device';
  maxAgeSeconds(config: Config): number;
}

export function authCookieName(config: Pick<Config, 'secureCookies'>, cookie: Pick<AuthCookie, 'name'>): string {
  return config.secureCookies ? `__Host-${cookie.name}` : cookie.name;
}

/** The attributes every sign-in cookie shares; its path is the one its name requires (authCookieName). */
export function authCookieOptions(config: Pick<Config, 'secureCookies'>, maxAgeSeconds: number): CookieOptions {
  return {
    httpOnly: true,
    sameSite: 'lax',
    secure: config.secureCookies,
    path: config.secureCookies ? '/' : '/auth',
    signed: true,
    maxAge: maxAgeSeconds * 1000,
  };
}

export function setAuthCookie(res: Response, config: Config, cookie: AuthCookie, value: string): void {
  res.cookie(authCookieName(config, cookie), value, authCookieOptions(config, cookie.maxAgeSeconds(config)));
}

/** The value of this browser's signed cookie, or undefined (absent, tampered, or only under the other name). */
export function readAuthCookie(req: Request, config: Pick<Config, 'secureCookies'>, cookie: Pick<AuthCookie, 'name'>): string | undefined {
  const value = (req.signedCookies as Record<string, unknown> | undefined)?.[authCookieName(config, cookie)];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Ends the cookie: same name and path as it was set with, or the browser keeps it. The empty
 * value is not signed: signing '' would cost an HMAC for nothing.
 */
export function clearAuthCookie(res: Response, config: Pick<Config, 'secureCookies'>, cookie: Pick<AuthCookie, 'name'>): void {
  const { maxAge: _maxAge, signed: _signed, ...options } = authCookieOptions(config, 0);
  res.clearCookie(authCookieName(config, cookie), options);
}
