import type { Request } from 'express';
import type { Config } from '../config/index.ts';
import { knownBrowserCookie } from '../login/known-browser.ts';
import { deviceCookieId } from '../login/remembered-device.ts';
import { providerSessionCookieFor } from '../oidc/provider.ts';
import type { PortalSessionWithId } from '../session/portal-session.ts';
import type { SessionRequest } from './sessions.service.ts';
import type { ClientInfo } from './two-factor.service.ts';

export function clientInfo(req: Request): ClientInfo {
  return { ip: req.ip ?? null, userAgent: req.get('user-agent') ?? null };
}

/** This browser's own cookies, for the calls that sign the others out and leave this one as it was. */
export function thisBrowser(req: Request, config: Pick<Config, 'secureCookies'>): Pick<SessionRequest, 'deviceCookieId' | 'knownBrowser'> {
  return { deviceCookieId: deviceCookieId(req, config), knownBrowser: knownBrowserCookie(req, config) };
}

/** What the session and password services need of a request. */
export function sessionRequest(
  req: Request,
  session: PortalSessionWithId,
  config: Pick<Config, 'secureCookies'>,
): SessionRequest & { acceptLanguage: string | undefined } {
  const cookie = (req.cookies as Record<string, unknown> | undefined)?.[providerSessionCookieFor(config)];
  return {
    session,
    opSessionCookie: typeof cookie === 'string' && cookie !== '' ? cookie : undefined,
    info: clientInfo(req),
    acceptLanguage: req.get('accept-language'),
  };
}
