import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import type { Config } from '../config/index.ts';
import type { Context } from '../context.ts';
import { emailCodeKeys } from '../credentials/email-code/email-code.ts';
import { readAuthCookie, type AuthCookie } from '../http/cookies.ts';
import { loginErrors } from './login-errors.ts';
import type { FirstFactor, LoginState } from './steps.ts';

export type Language = 'en' | 'sv';

/** A sign-in in progress, kept in the store under `login:<id>` until Done or its TTL. */
export interface LoginSession {
  id: string;
  /** The browser that started it: the SHA-256 (base64url) of the browser id in its login cookie (loginCookie). */
  browser: string;
  /** Normalised (trimmed, lower-case). */
  email: string;
  account_id: string | null;
  state: LoginState;
  first_factor: FirstFactor | null;
  /** The credential that proved the first factor, to mark it used at Done. */
  first_factor_credential_id: string | null;
  /**
   * ms on ctx.now()'s clock: when the proof of the first factor began, before the credential was
   * read. A password reset after it ends the sign-in (provenBeforeCredentialsChanged).
   */
  first_factor_at?: number;
  second_factor: boolean;
  /** The TOTP credential that proved the second factor, to mark it used at Done. */
  second_factor_credential_id?: string | null;
  /** RFC 8176 methods proven so far ('pwd', 'otp'); copied into the portal session at Done. */
  amr: string[];
  create_credential_answered: boolean;
  /** "Remember me" on the password form: the portal session cookie outlives the browser session. */
  remember: boolean;
  /**
   * Set on entering MfaRequired: whether this browser may be remembered for the account (never
   * for an operator, whose console needs the second factor at every sign-in). Absent: allowed.
   */
  remember_device_allowed?: boolean;
  /** The query string of /auth/login/start (client_id, type, lang, interaction, mode, ...). */
  query: Record<string, string>;
  lang: Language;
  /** ms on ctx.now()'s clock. */
  created_at: number;
  expires_at: number;
}

type SessionContext = Pick<Context, 'store' | 'config' | 'now'>;

/**
 * The cookie binding login sessions to the browser that started them: `nyckel_login`, or
 * `__Host-nyckel_login` over HTTPS (src/http/cookies.ts). It holds a random browser id, not a
 * session id, so each tab's sign-in is this browser's and a start in a second tab leaves the
 * first one's going. Done and a sign-out clear it, which ends every sign-in still in progress
 * in this browser, in whatever tab.
 */
export const loginCookie: AuthCookie = { name: 'nyckel_login', maxAgeSeconds: (config) => config.loginSessionTtl };
const key = (id: string) => `login:${id}`;

export function newLoginSessionId(): string {
  return randomBytes(32).toString('base64url');
}

/** A new browser id for the login cookie: as unguessable as a session id. */
export const newBrowserId = newLoginSessionId;

/** What a login session keeps of its browser's id: its digest, so the store never holds the cookie's value. */
export function browserDigest(browserId: string): string {
  return createHash('sha256').update(browserId).digest('base64url');
}

/**
 * Whether the session was started by the browser whose login cookie holds `browserId`, compared
 * in constant time: a session id leaked from one browser (logs, a shared link) is useless in
 * another. A session saved before browser ids (a sign-in under way at the upgrade) has none and
 * is no one's: it starts again.
 */
export function startedBy(session: LoginSession, browserId: string | undefined): boolean {
  if (!browserId || typeof session.browser !== 'string') return false;
  const presented = Buffer.from(browserDigest(browserId));
  const kept = Buffer.from(session.browser);
  return presented.length === kept.length && timingSafeEqual(presented, kept);
}

/**
 * Which request a sign-in is for: its OAuth request (`interaction`), else the Nyckel page it
 * returns to (`return_to`: the console, the profile; none for the tenant picker).
 */
export interface SignInRequest {
  interaction?: string | undefined;
  return_to?: string | undefined;
}

/**
 * The browser's latest sign-in for one request, which a reload of that request's page resumes
 * (pingLogin) and a new start for it ends (startLogin). Keyed by digests of the browser id and of
 * the request; lives as long as a login session.
 */
function latestKey(browserId: string, request: SignInRequest): string {
  const named = request.interaction ? `interaction:${request.interaction}` : `return_to:${request.return_to ?? ''}`;
  return `login-latest:${browserDigest(browserId)}:${createHash('sha256').update(named).digest('base64url')}`;
}

export async function latestLoginSessionId(ctx: SessionContext, browserId: string, request: SignInRequest): Promise<string | null> {
  return ctx.store.get(latestKey(browserId, request));
}

export async function setLatestLoginSession(ctx: SessionContext, browserId: string, session: LoginSession): Promise<void> {
  await ctx.store.set(latestKey(browserId, session.query), session.id, ctx.config.loginSessionTtl);
}

export async function saveLoginSession(ctx: SessionContext, session: LoginSession): Promise<void> {
  const ttl = Math.ceil((session.expires_at - ctx.now().getTime()) / 1000);
  if (ttl <= 0) throw loginErrors.sessionMissing();
  await ctx.store.set(key(session.id), JSON.stringify(session), ttl);
}

export async function loadLoginSession(ctx: SessionContext, id: string): Promise<LoginSession | null> {
  const raw = await ctx.store.get(key(id));
  if (!raw) return null;
  const session = JSON.parse(raw) as LoginSession;
  return session.expires_at > ctx.now().getTime() ? session : null;
}

/**
 * Removes the session and its code. getDel makes the removal the point where exactly one of
 * concurrent finishers wins (true); the others see false.
 */
export async function takeLoginSession(ctx: SessionContext, id: string): Promise<boolean> {
  const [raw] = await Promise.all([ctx.store.getDel(key(id)), ctx.store.del(...emailCodeKeys(id))]);
  return raw !== null;
}

const credentialsChangedKey = (accountId: string) => `credentials-changed:${accountId}`;

/**
 * A password reset or change, or an operator's "sign out everywhere", ends the account's sign-ins
 * in progress: one whose first factor was proven before (with the old password, phished, say, or
 * on the stolen laptop) must not finish its second factor afterwards. The
 * moment is kept for one login session TTL, by then every sign-in that began before it has
 * expired. Written after the new password is committed, so a proof that read the old one began
 * before it.
 */
export async function endSignInsInProgress(ctx: SessionContext, accountId: string): Promise<void> {
  await ctx.store.set(credentialsChangedKey(accountId), String(ctx.now().getTime()), ctx.config.loginSessionTtl);
}

/**
 * Whether the account's password was reset at or after the moment this sign-in began proving its
 * first factor (a session from before `first_factor_at` existed counts from its start). A tie
 * counts as before: refusing a sign-in that can start again is the safe side.
 */
export async function provenBeforeCredentialsChanged(ctx: SessionContext, accountId: string, session: LoginSession): Promise<boolean> {
  const changedAt = await ctx.store.get(credentialsChangedKey(accountId));
  return changedAt !== null && (session.first_factor_at ?? session.created_at) <= Number(changedAt);
}

/**
 * For a step that changes the account before the sign-in finishes (a first password, a linked
 * identity, merged authenticators): a sign-in whose first factor was proven before the account's
 * credentials changed (provenBeforeCredentialsChanged) ends here, as finish() would end it, before
 * it writes anything. A reset must not be undone by the sign-in it was meant to stop.
 */
export async function assertStillProven(ctx: SessionContext, accountId: string, session: LoginSession): Promise<void> {
  if (!(await provenBeforeCredentialsChanged(ctx, accountId, session))) return;
  await takeLoginSession(ctx, session.id);
  throw loginErrors.sessionMissing();
}

/** The browser id in this browser's signed login cookie, or undefined (absent or tampered). */
export function loginBrowserId(req: Request, config: Pick<Config, 'secureCookies'>): string | undefined {
  return readAuthCookie(req, config, loginCookie);
}

/** The named login session if this browser started it (startedBy), else null. */
export async function loadOwnLoginSession(ctx: SessionContext, browserId: string | undefined, id: string): Promise<LoginSession | null> {
  if (!browserId || !id) return null;
  const session = await loadLoginSession(ctx, id);
  return session && startedBy(session, browserId) ? session : null;
}

/** Loads the login session a call names, or throws `login_session_missing` (401): missing, expired, or another browser's. */
export async function requireLoginSession(ctx: SessionContext, browserId: string | undefined, claimedId: string): Promise<LoginSession> {
  const session = await loadOwnLoginSession(ctx, browserId, claimedId);
  if (!session) throw loginErrors.sessionMissing();
  return session;
}

/** Throws `invalid_login_session_state` (409) unless the session is in one of the given states. */
export function assertState(session: LoginSession, ...states: LoginState[]): void {
  if (!states.includes(session.state)) throw loginErrors.invalidState();
}
