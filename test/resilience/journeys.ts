import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { Db } from '../../src/db/knex.ts';
import { upsertClient } from '../../src/oidc/clients.ts';
import { BrowserLike } from '../helpers/browser-like.ts';

/** Secrets shared by every Nyckel process of a test, so cookies and sealed secrets survive a restart. */
export function sharedSecrets(): { COOKIE_SECRETS: string; ENCRYPTION_KEY: string } {
  return { COOKIE_SECRETS: randomBytes(32).toString('base64url'), ENCRYPTION_KEY: randomBytes(32).toString('base64') };
}

export const relyingParty = {
  client_id: 'resilience-rp',
  client_secret: 'resilience-rp-secret-0123456789',
  redirect_uri: 'http://127.0.0.1:9/callback',
};

export async function registerRelyingParty(db: Db): Promise<void> {
  await upsertClient(db, { client_id: relyingParty.client_id, redirect_uris: [relyingParty.redirect_uri], client_secret: relyingParty.client_secret });
}

export interface Authorization {
  /** /oauth2/authorize?... */
  path: string;
  verifier: string;
  state: string;
}

export function authorizationRequest(scope = 'openid email'): Authorization {
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(8).toString('base64url');
  const query = new URLSearchParams({
    client_id: relyingParty.client_id,
    response_type: 'code',
    redirect_uri: relyingParty.redirect_uri,
    scope,
    ...(scope.includes('offline_access') && { prompt: 'consent' }),
    state,
    nonce: randomBytes(8).toString('base64url'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  return { path: `/oauth2/authorize?${query}`, verifier, state };
}

/** Signs in with a password on /login (as the portal does) and answers where Done leads. */
export async function signInOnLoginPage(browser: BrowserLike, loginUrl: URL, email: string, password: string): Promise<string> {
  expect(loginUrl.pathname).toBe('/login');
  const start = await browser.json<{ state: string; session_id: string }>(`/auth/login/start${loginUrl.search}`, { email });
  expect(start.body.state).toBe('CredentialsRequired');
  const done = await browser.json<{ state: string; redirect_to: string }>('/auth/login/verify-password', { session_id: start.body.session_id, email, password });
  expect(done.body.state).toBe('Done');
  return done.body.redirect_to;
}

/** The code (and the rest of the callback) from the redirect to the relying party. */
export function callbackOf(url: URL, authorization: Authorization): string {
  expect(url.origin + url.pathname).toBe(relyingParty.redirect_uri);
  expect(url.searchParams.get('state')).toBe(authorization.state);
  const code = url.searchParams.get('code');
  expect(code, `callback without a code: ${url}`).toBeTruthy();
  return code!;
}

/** A full authorization: /oauth2/authorize, /login, back to the relying party with a code. */
export async function authorizationCode(
  browser: BrowserLike,
  email: string,
  password: string,
  scope?: string,
): Promise<{ code: string; authorization: Authorization }> {
  const authorization = authorizationRequest(scope);
  const { url } = await browser.follow(authorization.path);
  const redirect = await signInOnLoginPage(browser, url, email, password);
  const { url: callback } = await browser.follow(redirect);
  return { code: callbackOf(callback, authorization), authorization };
}

export interface TokenAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** The relying party's code exchange at /oauth2/token (client_secret_basic, PKCE). */
export async function exchangeCode(base: string, code: string, verifier: string): Promise<TokenAnswer> {
  return tokenRequest(base, { grant_type: 'authorization_code', code, redirect_uri: relyingParty.redirect_uri, code_verifier: verifier });
}

async function tokenRequest(base: string, params: Record<string, string>): Promise<TokenAnswer> {
  const response = await fetch(`${base}/oauth2/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${relyingParty.client_id}:${relyingParty.client_secret}`).toString('base64')}`,
    },
    body: new URLSearchParams(params),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The relying party's refresh grant at /oauth2/token (client_secret_basic). */
export async function refreshGrant(base: string, refreshToken: string): Promise<TokenAnswer> {
  return tokenRequest(base, { grant_type: 'refresh_token', refresh_token: refreshToken });
}

/** Repeats `attempt` every 250 ms until it answers something other than 503, or `withinMs` passes. */
export async function untilAvailable<T extends { status: number }>(withinMs: number, attempt: () => Promise<T>): Promise<{ answer: T; afterMs: number }> {
  const started = Date.now();
  let answer = await attempt();
  while (answer.status === 503 && Date.now() - started < withinMs) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    answer = await attempt();
  }
  return { answer, afterMs: Date.now() - started };
}

export { BrowserLike };
