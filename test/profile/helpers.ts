import * as client from 'openid-client';
import { expect } from 'vitest';
import { upsertClient } from '../../src/oidc/clients.ts';
import { createAccount } from '../fixtures/accounts.ts';
import { pkceAuthorization } from '../helpers/authorization.ts';
import { BrowserLike } from '../helpers/browser-like.ts';
import type { TestServer } from '../helpers/server.ts';

export const PASSWORD = 'Correct-horse9!';
export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

let counter = 0;

/** A User account with a password, written straight to the database. */
export async function person(server: TestServer, prefix = 'profile'): Promise<{ id: string; email: string }> {
  counter += 1;
  const email = `${prefix}-${counter}-${Date.now()}@example.com`;
  return { id: await createAccount(server.ctx.db, { email, password: PASSWORD, name: `${prefix} ${counter}` }), email };
}

export async function registerClient(server: TestServer, clientId: string, name = clientId): Promise<void> {
  await upsertClient(server.ctx.db, {
    client_id: clientId,
    client_name: name,
    redirect_uris: [REDIRECT_URI],
    client_secret: `${clientId}-secret-0123456789`,
  });
}

/** A browser signed in to the portal (no application): start + verify-password. */
export async function signedInBrowser(server: TestServer, email: string): Promise<BrowserLike> {
  const browser = new BrowserLike(server.base);
  const start = await browser.json<{ state: string; session_id: string }>('/auth/login/start', { email });
  expect(start.body.state).toBe('CredentialsRequired');
  const done = await browser.json<{ state: string }>('/auth/login/verify-password', { session_id: start.body.session_id, email, password: PASSWORD });
  expect(done.body.state).toBe('Done');
  return browser;
}

/**
 * A relying party signs the person in through the browser (code flow, PKCE, offline_access):
 * the browser is left signed in to Nyckel, and the RP holds tokens with a refresh token.
 */
export async function signInToApplication(
  server: TestServer,
  clientId: string,
  email: string,
  browser = new BrowserLike(server.base),
): Promise<{ browser: BrowserLike; config: client.Configuration; tokens: client.TokenEndpointResponse }> {
  const config = await client.discovery(new URL(server.issuer), clientId, `${clientId}-secret-0123456789`, undefined, {
    execute: [client.allowInsecureRequests],
  });
  const { url, verifier, state } = await pkceAuthorization(config, { redirect_uri: REDIRECT_URI, scope: 'openid email offline_access', prompt: 'consent' }, { nonce: false });
  let { url: at } = await browser.follow(url.toString());
  if (at.origin === server.base) {
    expect(at.pathname).toBe('/login');
    const start = await browser.json<{ state: string; session_id: string }>(`/auth/login/start${at.search}`, { email });
    const done = await browser.json<{ state: string; redirect_to: string }>('/auth/login/verify-password', {
      session_id: start.body.session_id,
      email,
      password: PASSWORD,
    });
    expect(done.body.state).toBe('Done');
    at = (await browser.follow(done.body.redirect_to)).url;
  }
  expect(at.origin + at.pathname).toBe(REDIRECT_URI);
  const tokens = await client.authorizationCodeGrant(config, at, { pkceCodeVerifier: verifier, expectedState: state });
  expect(tokens.refresh_token).toBeTruthy();
  return { browser, config, tokens };
}

/** GET with the browser's cookies; JSON body or undefined. */
export async function getJson<T = Record<string, unknown>>(browser: BrowserLike, path: string): Promise<{ status: number; body: T }> {
  const response = await browser.request(path);
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
}

/** A same-origin call with a method, as the portal makes it (JSON content type, our Origin). */
export async function call<T = Record<string, unknown>>(
  browser: BrowserLike,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T }> {
  const response = await browser.request(path, {
    method,
    headers: { 'content-type': 'application/json', origin: browser.base, ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
}
