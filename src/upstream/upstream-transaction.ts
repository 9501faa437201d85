import { timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import type { Config } from '../config/index.ts';
import type { Context } from '../context.ts';
import { readAuthCookie, type AuthCookie } from '../http/cookies.ts';
import type { UpstreamProviderName } from './upstream-providers.ts';

/**
 * Why the browser went to the provider:
 * - `login`: sign in (CredentialsRequired) with a linked identity, or link one whose verified email
 *   is the session's;
 * - `link-after-code`: link on the ask-to-create-credential step, after the email code;
 * - `link-from-profile`: link from /profile with a recent sign-in.
 */
export type UpstreamPurpose = 'login' | 'link-after-code' | 'link-from-profile';

/** One trip to the provider and back, kept in the store under its `state` until the callback. */
export interface UpstreamTransaction {
  state: string;
  nonce: string;
  code_verifier: string;
  provider: UpstreamProviderName;
  purpose: UpstreamPurpose;
  /** login and link-after-code. */
  login_session_id: string | null;
  /** link-from-profile: the account whose portal session started it. */
  account_id: string | null;
  /** link-from-profile: the local path to return to. */
  from: string | null;
}

type StoreContext = Pick<Context, 'store'>;

export const transactionTtlSeconds = 10 * 60;
const key = (state: string) => `upstream:${state}`;

export async function saveTransaction(ctx: StoreContext, tx: UpstreamTransaction): Promise<void> {
  await ctx.store.set(key(tx.state), JSON.stringify(tx), transactionTtlSeconds);
}

/** Single use: getDel, so a replayed or concurrent callback finds nothing. */
export async function takeTransaction(ctx: StoreContext, state: string): Promise<UpstreamTransaction | null> {
  if (!/^[A-Za-z0-9_-]{16,128}$/.test(state)) return null;
  const raw = await ctx.store.getDel(key(state));
  return raw ? (JSON.parse(raw) as UpstreamTransaction) : null;
}

/**
 * The browser binding: a signed HttpOnly cookie with the state (and where an error should lead).
 * A callback URL opened in another browser has no such cookie and fails, so a code phished from
 * one person cannot be completed in the attacker's browser, nor an attacker's code in a victim's
 * (login CSRF). SameSite=Lax: the provider's redirect back is a top-level GET, which carries it.
 * `nyckel_upstream`, or `__Host-nyckel_upstream` over HTTPS so that a sibling subdomain cannot
 * plant the attacker's into a victim's browser either (src/http/cookies.ts).
 */
export const upstreamBindingCookie: AuthCookie = { name: 'nyckel_upstream', maxAgeSeconds: () => transactionTtlSeconds };

export interface UpstreamCookie {
  state: string;
  purpose: UpstreamPurpose;
  loginSessionId: string | null;
}

const purposes: readonly UpstreamPurpose[] = ['login', 'link-after-code', 'link-from-profile'];

export function encodeUpstreamCookie(value: UpstreamCookie): string {
  return [value.purpose, value.state, value.loginSessionId ?? ''].join('~');
}

/** The cookie of this browser, or null (absent, tampered or malformed). */
export function upstreamCookie(req: Request, config: Pick<Config, 'secureCookies'>): UpstreamCookie | null {
  const raw = readAuthCookie(req, config, upstreamBindingCookie);
  if (raw === undefined) return null;
  const [purpose, state, loginSessionId] = raw.split('~');
  if (!purposes.includes(purpose as UpstreamPurpose) || !state) return null;
  return { purpose: purpose as UpstreamPurpose, state, loginSessionId: loginSessionId || null };
}

export function sameState(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
