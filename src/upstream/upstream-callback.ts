import * as client from 'openid-client';
import type { Context } from '../context.ts';
import { findOidcCredential } from '../credentials/oidc/oidc-credentials.repository.ts';
import { verifiers } from '../credentials/registry.ts';
import { loadAccountFacts } from '../login/login-answer.ts';
import { loginErrors } from '../login/login-errors.ts';
import { advance, type LoginOutcome, type RequestInfo } from '../login/login-finish.ts';
import { assertState, assertStillProven, loadOwnLoginSession, requireLoginSession, type LoginSession } from '../login/login-session.ts';
import { isUnavailable } from '../http/error-handler.ts';
import { rateLimitsFor } from '../http/rate-limit.ts';
import { verifyFirstFactor } from '../login/login.service.ts';
import type { PortalSessionWithId } from '../session/portal-session.ts';
import { withParam } from './local-path.ts';
import { describe, isUnreachable, upstreamClient } from './upstream-client.ts';
import { upstreamErrors } from './upstream-errors.ts';
import { identityFromClaims, mayLinkAutomatically, type UpstreamIdentity } from './upstream-identity.ts';
import { linkIdentity } from './upstream-linking.ts';
import { callbackUrl, providerSettings } from './upstream-providers.ts';
import { loginUrl, profileUrl, refusalType, returnTo } from './upstream-redirects.ts';
import { sameState, takeTransaction, type UpstreamCookie, type UpstreamTransaction } from './upstream-transaction.ts';

export interface CallbackInput {
  /** The provider named in the callback path. */
  provider: string;
  /** The callback's query string as received. */
  query: URLSearchParams;
  cookie: UpstreamCookie | null;
  loginBrowserId: string | undefined;
  /** This browser's portal session: read only for a link from the profile. */
  loadPortalSession: () => Promise<PortalSessionWithId | null>;
  info: RequestInfo;
}

export interface CallbackRedirect {
  location: string;
  /** A sign-in that moved on: at Done it carries the new portal session for the cookie. */
  login?: LoginOutcome;
}

/**
 * /auth/oauth/callback/{provider}. In order: the transaction named by `state` is taken (single
 * use: a replayed callback finds nothing), it must be this browser's (the signed cookie holds the
 * same state) and for this provider (a code from provider A presented on B's callback is an
 * issuer mix-up); then the code is exchanged with the PKCE verifier and the ID token validated
 * (signature, issuer, audience, expiry, nonce). Only then does the purpose decide what happens.
 * Every refusal redirects with an error type and links nothing, an outage of the store or the
 * database too (refusalType).
 */
export async function completeCallback(ctx: Context, input: CallbackInput): Promise<CallbackRedirect> {
  const state = input.query.get('state') ?? '';
  let tx: UpstreamTransaction | null = null;
  try {
    tx = state ? await takeTransaction(ctx, state) : null;
    if (!tx || !input.cookie || !sameState(input.cookie.state, state)) throw upstreamErrors.stateMismatch();
    if (tx.provider !== input.provider) throw upstreamErrors.stateMismatch();
    // The per-IP budget, once the callback is this browser's (a stranger's request spends nothing
    // of the address's budget), before the provider is asked; answered like any refusal here: a
    // redirect to where the person came from.
    await rateLimitsFor(ctx).consume('ip', input.info.ip ?? 'unknown');
    const identity = await exchangeCode(ctx, tx, input.query);
    switch (tx.purpose) {
      case 'login':
        return await signIn(ctx, tx, identity, input);
      case 'link-after-code':
        return await linkAfterCode(ctx, tx, identity, input);
      case 'link-from-profile':
        return await linkFromProfile(ctx, tx, identity, input);
    }
  } catch (error) {
    return { location: await errorLocation(ctx, tx, input, refusalType(ctx, error)) };
  }
}

async function exchangeCode(ctx: Context, tx: UpstreamTransaction, query: URLSearchParams): Promise<UpstreamIdentity> {
  const upstreamError = query.get('error');
  if (upstreamError) {
    ctx.logger.info({ provider: tx.provider, error: upstreamError.slice(0, 64) }, 'upstream answered an error');
    throw upstreamError === 'access_denied' ? upstreamErrors.accessDenied() : upstreamErrors.providerError();
  }
  const configuration = await upstreamClient(ctx, tx.provider);
  let claims: Record<string, unknown> | undefined;
  try {
    const tokens = await client.authorizationCodeGrant(configuration, new URL(`${callbackUrl(ctx.config, tx.provider)}?${query}`), {
      pkceCodeVerifier: tx.code_verifier,
      expectedNonce: tx.nonce,
      expectedState: tx.state,
      idTokenExpected: true,
    });
    claims = tokens.claims() as Record<string, unknown> | undefined;
  } catch (error) {
    ctx.logger.warn({ provider: tx.provider, err: describe(error) }, 'upstream code exchange or ID token refused');
    throw isUnreachable(error) ? upstreamErrors.unavailable() : upstreamErrors.providerError();
  }
  if (!claims) throw upstreamErrors.providerError();
  return identityFromClaims(tx.provider, claims, {
    issuerTemplate: configuration.serverMetadata().issuer,
    allowedTenants: providerSettings(ctx.config, tx.provider)?.allowedTenants ?? [],
  });
}

/**
 * Sign in with the upstream identity as the first factor, through the same verifier path as a
 * password (per-email budget, MFA after it), but not held by the email's lock (lockHolds): the
 * provider, not a guess, proved it. An identity not yet bound links itself first only under
 * mayLinkAutomatically's rule.
 */
async function signIn(ctx: Context, tx: UpstreamTransaction, identity: UpstreamIdentity, input: CallbackInput): Promise<CallbackRedirect> {
  const session = await requireLoginSession(ctx, input.loginBrowserId, tx.login_session_id ?? '');
  assertState(session, ...verifiers.oidc.acceptedIn);
  const { account } = await loadAccountFacts(ctx, session.email);
  if (account && !(await findOidcCredential(ctx.db, identity)) && mayLinkAutomatically(identity, session.email)) {
    await linkIdentity(ctx, account.id, identity, 'login-verified-email', input.info);
  }
  const outcome = await verifyFirstFactor(ctx, session, 'oidc', { issuer: identity.issuer, subject: identity.subject }, input.info);
  return { location: afterLogin(session, outcome), login: outcome };
}

/** The ask-to-create-credential step: the email code proved the account, the upstream the identity. */
async function linkAfterCode(ctx: Context, tx: UpstreamTransaction, identity: UpstreamIdentity, input: CallbackInput): Promise<CallbackRedirect> {
  const session = await requireLoginSession(ctx, input.loginBrowserId, tx.login_session_id ?? '');
  assertState(session, 'AskedCreateCredential');
  const { account } = await loadAccountFacts(ctx, session.email);
  if (!account) throw loginErrors.invalidState();
  // A sign-in overtaken by a reset or a sign-out everywhere links nothing.
  await assertStillProven(ctx, account.id, session);
  await linkIdentity(ctx, account.id, identity, 'login-after-code', input.info);
  const outcome = await advance(ctx, { ...session, create_credential_answered: true }, await loadAccountFacts(ctx, session.email), input.info);
  return { location: afterLogin(session, outcome), login: outcome };
}

/**
 * From /profile: the portal session that started the link must still be signed in as the same
 * account (its recent sign-in was checked at the start, at most the transaction's 10 minutes ago).
 */
async function linkFromProfile(ctx: Context, tx: UpstreamTransaction, identity: UpstreamIdentity, input: CallbackInput): Promise<CallbackRedirect> {
  const portal = await input.loadPortalSession();
  if (!portal || portal.account_id !== tx.account_id) return { location: '/login' };
  await linkIdentity(ctx, portal.account_id, identity, 'profile', input.info);
  return { location: withParam(tx.from ?? '/profile', 'linked', tx.provider) };
}

/**
 * Done goes to the login's `return_to`, else where the server decided (the OAuth hand-off,
 * tenants, athena); any other step to /login, which carries `return_to` on to that step's Done.
 */
function afterLogin(session: LoginSession, outcome: LoginOutcome): string {
  if (outcome.answer.state === 'Done') return returnTo(session) ?? outcome.answer.redirect_to ?? '/login/select-tenant';
  return loginUrl(session);
}

/**
 * Where a refused callback goes: the page the flow started from, known from the transaction or,
 * when that is gone (replay, expiry, another browser, a store that cannot be read), from this
 * browser's cookie. A login session that is still this browser's is resumed so the person can
 * pick another way.
 */
async function errorLocation(ctx: Context, tx: UpstreamTransaction | null, input: CallbackInput, type: string): Promise<string> {
  const purpose = tx?.purpose ?? input.cookie?.purpose ?? 'login';
  if (purpose === 'link-from-profile') return profileUrl(tx?.from ?? '/profile', type);
  const sessionId = tx?.login_session_id ?? input.cookie?.loginSessionId ?? null;
  return loginUrl(sessionId ? await resumable(ctx, input.loginBrowserId, sessionId) : null, type);
}

/** This browser's login session to resume; none while the store cannot be read (already logged): /login starts over. */
async function resumable(ctx: Context, browserId: string | undefined, sessionId: string): Promise<LoginSession | null> {
  try {
    return await loadOwnLoginSession(ctx, browserId, sessionId);
  } catch (error) {
    if (!isUnavailable(error)) throw error;
    return null;
  }
}
