/**
 * The portal session's cookie: its name and how a request's is read. The session it names is
 * src/session/portal-session.ts's; the cookie holds only its id, signed.
 */
import cookieParser from 'cookie-parser';
import type { Request } from 'express';
import type { Config } from '../config/index.ts';

/** The cookie's name over plain HTTP (development, tests); see portalCookieNameFor. */
export const portalCookieName = 'nyckel_session';

/**
 * `__Host-nyckel_session` when cookies are Secure: the browser then takes it only from this exact
 * origin, over HTTPS, with Path=/ and no Domain, so a sibling subdomain cannot plant its own
 * signed-in session in a person's browser (signing them in as someone else) or shadow theirs.
 * Only that name is read there.
 */
export function portalCookieNameFor(config: Pick<Config, 'secureCookies'>): string {
  return config.secureCookies ? `__Host-${portalCookieName}` : portalCookieName;
}

/**
 * The id in the signed session cookie (`nyckel_session`, or `__Host-nyckel_session` over HTTPS). Works behind cookie-parser (our /auth and /api
 * routers) and without it (e.g. a route beside oidc-provider), by verifying the signature here.
 */
export function portalSessionId(config: Config, req: Request): string | undefined {
  const name = portalCookieNameFor(config);
  const parsed = (req.signedCookies as Record<string, unknown> | undefined)?.[name];
  if (typeof parsed === 'string' && parsed !== '') return parsed;
  if (req.signedCookies) return undefined;
  const raw = readCookie(req.headers.cookie, name);
  if (!raw) return undefined;
  const unsigned = cookieParser.signedCookie(raw, [...config.cookieSecrets]);
  return typeof unsigned === 'string' && unsigned !== raw && unsigned !== '' ? unsigned : undefined;
}

function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of header?.split(';') ?? []) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) {
      try {
        return decodeURIComponent(part.slice(index + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}
