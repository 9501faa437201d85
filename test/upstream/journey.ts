import type { Response } from 'supertest';
import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import type { Browser } from '../login/journey.ts';
import { visitUpstream, type TestUpstream, type UpstreamBehaviour } from './upstream-provider.ts';

/** Where a 303 leads (path + query for our own URLs). */
export function locationOf(res: Response): string {
  expect(res.status, res.text).toBe(303);
  return res.headers.location as string;
}

/** The `error` of a redirect to /login or /profile. */
export function errorOf(location: string): string | null {
  return new URL(location, 'http://nyckel.invalid').searchParams.get('error');
}

/** Starts a login session (from a /login page whose query is `query`) and lands on the given step; answers its session id. */
export async function startLogin(browser: Browser, email: string, state = 'CredentialsRequired', query = ''): Promise<string> {
  const res = await browser.post(`/auth/login/start${query}`).send({ email });
  expect(res.body.state).toBe(state);
  return res.body.session_id as string;
}

/** GET one of the start routes: answers the provider's authorization URL. */
export async function toProvider(browser: Browser, path: string): Promise<string> {
  const location = locationOf(await browser.get(path).redirects(0));
  expect(location.startsWith('http://127.0.0.1:'), location).toBe(true);
  return location;
}

/** The person signs in at the provider as told; answers Nyckel's callback URL. */
export async function atProvider(upstream: TestUpstream, authorizationUrl: string, behaviour: UpstreamBehaviour): Promise<URL> {
  upstream.next(behaviour);
  const callback = await visitUpstream(upstream, authorizationUrl);
  expect(callback.pathname).toBe(`/auth/oauth/callback/${upstream.kind}`);
  return callback;
}

/** The browser arrives at Nyckel's callback. */
export function arrive(browser: Browser, callback: URL): Promise<Response> {
  return browser.get(`${callback.pathname}${callback.search}`).redirects(0);
}

/** The whole trip: start route → provider → callback; answers the callback's response. */
export async function roundTrip(browser: Browser, upstream: TestUpstream, path: string, behaviour: UpstreamBehaviour): Promise<Response> {
  return arrive(browser, await atProvider(upstream, await toProvider(browser, path), behaviour));
}

export async function oidcCredentials(t: TestApp, accountId: string) {
  return t.ctx.db('credentials').where({ account_id: accountId, type: 'oidc' }).select('id', 'provider', 'subject', 'data');
}

export async function auditActions(t: TestApp, accountId: string): Promise<{ action: string; details: Record<string, unknown> }[]> {
  return t.ctx.db('audit_events').where({ target_account_id: accountId }).orderBy('id').select('action', 'details');
}

/** Google's claims for an address it answers for: verified, in the account's Workspace domain (`hd`). */
export function googleVerified(email: string): { email: string; email_verified: true; hd: string } {
  return { email, email_verified: true, hd: email.slice(email.lastIndexOf('@') + 1).toLowerCase() };
}
