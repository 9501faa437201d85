import { timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Config } from '../config/index.ts';
import { clearAuthCookie, readAuthCookie, setAuthCookie, type AuthCookie } from '../http/cookies.ts';

/**
 * The cookie binding sign-ins in progress to the browser that started them: `nyckel_login`, or
 * `__Host-nyckel_login` over HTTPS (src/http/cookies.ts). It holds the ids of this browser's
 * newest sign-ins, newest first, not one: a person may be mid-sign-in in several tabs (one per
 * application, or a morning's tabs restored at once), and a start in one tab must not strand the
 * others with `login_session_missing`.
 *
 * The ids are joined by '.', which base64url ids never hold and a cookie value carries unescaped;
 * the whole list is signed as one value (cookie-signature cuts its signature at the last '.', so
 * the dots before it stay under the signature). A cookie written before the list, one bare id,
 * reads as a list of one.
 */
export const loginCookie: AuthCookie = { name: 'nyckel_login', maxAgeSeconds: (config) => config.loginSessionTtl };

/**
 * How many sign-ins in progress one browser keeps: enough for a person's tabs, few enough that
 * the cookie stays a few hundred bytes (5 × 43 characters and the signature) and that checking a
 * claimed id costs five comparisons.
 */
export const maxLoginsPerBrowser = 5;

const separator = '.';

/** The ids in this browser's signed login cookie, newest first; none when it is absent or tampered. */
export function loginCookieIds(req: Request, config: Pick<Config, 'secureCookies'>): string[] {
  const value = readAuthCookie(req, config, loginCookie);
  if (!value) return [];
  return value.split(separator).filter((id) => id !== '').slice(0, maxLoginsPerBrowser);
}

/** Writes the cookie with these ids (the first maxLoginsPerBrowser), or ends it when none remain. */
export function setLoginCookie(res: Response, config: Config, ids: readonly string[]): void {
  const kept = ids.slice(0, maxLoginsPerBrowser);
  if (kept.length === 0) clearAuthCookie(res, config, loginCookie);
  else setAuthCookie(res, config, loginCookie, kept.join(separator));
}

/**
 * A sign-in finished (Done) or abandoned (Cancel): its id leaves the cookie, and the sign-ins of
 * the browser's other tabs stay in it. The last one leaving ends the cookie.
 */
export function dropFromLoginCookie(req: Request, res: Response, config: Config, sessionId: string): void {
  const ids = loginCookieIds(req, config);
  setLoginCookie(res, config, ids.filter((id) => !sameId(id, sessionId)));
}

/**
 * The `session_id` a call names must be one of the ids in this browser's cookie: a session id
 * leaked from one browser (logs, a shared link) is useless in another. Each id is compared in
 * constant time and every one is compared, so the time taken tells neither whether nor where in
 * the list the claimed id matched.
 */
export function sameSessionId(cookieIds: readonly string[], claimedId: string | undefined): boolean {
  if (!claimedId) return false;
  let found = false;
  for (const id of cookieIds) found = sameId(id, claimedId) || found;
  return found;
}

function sameId(cookieId: string, claimedId: string): boolean {
  const a = Buffer.from(cookieId);
  const b = Buffer.from(claimedId);
  return a.length === b.length && timingSafeEqual(a, b);
}
