import * as client from 'openid-client';
import type { Context } from '../context.ts';
import { rateLimitsFor } from '../http/rate-limit.ts';
import { assertState, requireLoginSession, type LoginSession } from '../login/login-session.ts';
import { assertRecentSignIn } from '../profile/signed-in.ts';
import type { PortalSessionWithId } from '../session/portal-session.ts';
import { localPath } from './local-path.ts';
import { upstreamClient } from './upstream-client.ts';
import { upstreamErrors } from './upstream-errors.ts';
import { callbackUrl, isUpstreamProviderName, providerSettings, type UpstreamProviderName } from './upstream-providers.ts';
import { loginUrl, profileUrl, refusalType } from './upstream-redirects.ts';
import { encodeUpstreamCookie, saveTransaction, type UpstreamTransaction } from './upstream-transaction.ts';

/** Where the browser goes next, and the browser-binding cookie when it goes to the provider. */
export interface StartRedirect {
  location: string;
  upstreamCookie?: string;
}

/** The provider named in the path, configured; else `oauth/provider_not_configured`. */
export function configuredProvider(ctx: Pick<Context, 'config'>, raw: string): UpstreamProviderName {
  if (!isUpstreamProviderName(raw) || !providerSettings(ctx.config, raw)) throw upstreamErrors.notConfigured();
  return raw;
}

/**
 * /auth/login/oauth/{provider} (sign in, from CredentialsRequired) and /auth/login/link/oauth/{provider}
 * (link after the email code, from AskedCreateCredential). The login session must be this
 * browser's (cookie) and in the step that offers the button. Any refusal goes back to /login with
 * the error; the session, when there is one, stays where it was. The per-IP budget too
 * (`too_many_requests`), and an outage (`service_unavailable`): a browser redirect's answer is a
 * page, never JSON shown raw.
 */
export async function startFromLogin(
  ctx: Context,
  input: { provider: string; purpose: 'login' | 'link-after-code'; browserId: string | undefined; sessionId: string; ip: string },
): Promise<StartRedirect> {
  let session: LoginSession | null = null;
  try {
    // The session first: a call without this browser's login cookie (another site's <img>, which
    // carries no SameSite=Lax cookie) spends nothing of the address's budget, which everyone
    // behind the address signs in with. A spent budget is answered with the session known, so
    // the redirect keeps it.
    session = await requireLoginSession(ctx, input.browserId, input.sessionId);
    await rateLimitsFor(ctx).consume('ip', input.ip);
    assertState(session, input.purpose === 'login' ? 'CredentialsRequired' : 'AskedCreateCredential');
    const provider = configuredProvider(ctx, input.provider);
    return await begin(ctx, {
      provider,
      purpose: input.purpose,
      login_session_id: session.id,
      account_id: null,
      from: null,
      loginHint: session.email,
    });
  } catch (error) {
    return { location: loginUrl(session, refusalType(ctx, error)) };
  }
}

/**
 * /auth/link/oauth/{provider}?from=: link from the profile. Changing how one signs in needs a
 * sign-in within the last minutes (as for second factors): a stolen or forgotten-open session
 * must not be able to add the thief's Google account as a way into this one. `from` is followed
 * only when it is a local path. Refusals, an outage too, go back to `from` with the error.
 */
export async function startFromProfile(
  ctx: Context,
  input: { provider: string; from: unknown; loadPortalSession: () => Promise<PortalSessionWithId | null>; ip: string },
): Promise<StartRedirect> {
  const from = localPath(input.from) ?? '/profile';
  try {
    const portalSession = await input.loadPortalSession();
    if (!portalSession) return { location: '/login' };
    await rateLimitsFor(ctx).consume('ip', input.ip);
    assertRecentSignIn(portalSession, ctx.now());
    const provider = configuredProvider(ctx, input.provider);
    return await begin(ctx, {
      provider,
      purpose: 'link-from-profile',
      login_session_id: null,
      account_id: portalSession.account_id,
      from,
      loginHint: portalSession.email,
    });
  } catch (error) {
    return { location: profileUrl(from, refusalType(ctx, error)) };
  }
}

type BeginInput = Omit<UpstreamTransaction, 'state' | 'nonce' | 'code_verifier'> & { loginHint: string };

/** Authorization code + PKCE (S256), with fresh state and nonce kept server-side for the callback. */
async function begin(ctx: Context, input: BeginInput): Promise<StartRedirect> {
  const configuration = await upstreamClient(ctx, input.provider);
  const { loginHint, ...rest } = input;
  const tx: UpstreamTransaction = {
    ...rest,
    state: client.randomState(),
    nonce: client.randomNonce(),
    code_verifier: client.randomPKCECodeVerifier(),
  };
  await saveTransaction(ctx, tx);
  const url = client.buildAuthorizationUrl(configuration, {
    redirect_uri: callbackUrl(ctx.config, tx.provider),
    response_type: 'code',
    scope: 'openid email profile',
    state: tx.state,
    nonce: tx.nonce,
    code_challenge: await client.calculatePKCECodeChallenge(tx.code_verifier),
    code_challenge_method: 'S256',
    login_hint: loginHint,
  });
  return {
    location: url.href,
    upstreamCookie: encodeUpstreamCookie({ state: tx.state, purpose: tx.purpose, loginSessionId: tx.login_session_id }),
  };
}
