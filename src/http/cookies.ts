import type { CookieOptions } from 'express';
import type { Config } from '../config/index.ts';

/**
 * The cookies of the sign-in API: signed, HttpOnly, read only under /auth, and SameSite=Lax so an
 * upstream provider's redirect back (a top-level GET) still carries them. They differ only in
 * how long they live.
 */
export function authCookieOptions(config: Pick<Config, 'secureCookies'>, maxAgeSeconds: number): CookieOptions {
  return {
    httpOnly: true,
    sameSite: 'lax',
    secure: config.secureCookies,
    path: '/auth',
    signed: true,
    maxAge: maxAgeSeconds * 1000,
  };
}
