import type Provider from 'oidc-provider';
import { findAccountById } from '../accounts/accounts.repository.ts';
import { recordAudit } from '../audit/audit.ts';
import type { Context } from '../context.ts';
import { errors } from '../http/app-error.ts';
import { listAccountKeys, type AccountOidcEntry } from '../oidc/account-keys.ts';
import { endOidc, revokeGrant } from '../oidc/grants.ts';
import { forgetKnownBrowsers, guesserFor } from '../login/lockout.ts';
import { issueKnownBrowser } from '../login/known-browser.ts';
import { publicDeviceId, revokeAllRememberedDevices } from '../login/remembered-device.ts';
import {
  destroyAccountPortalSessions,
  destroyPortalSession,
  linkedOidcSessions,
  linkOidcSession,
  listPortalSessions,
  publicSessionId,
  type PortalSessionWithId,
} from '../session/portal-session.ts';
import { forgetRememberedDevices } from './device-revocation.ts';
import type { ClientInfo } from './two-factor.service.ts';

/** A Nyckel sign-in session in the profile's list. The id is publicSessionId(), never the cookie. */
export interface SessionListing {
  id: string;
  current: boolean;
  /** ISO 8601. */
  signed_in_at: string;
  user_agent: string | null;
  /** RFC 8176 methods of the sign-in (pwd, otp, mfa, ...). */
  methods: string[];
}

/** An application holding tokens: one oidc-provider grant. */
export interface ApplicationListing {
  /** The grant id (not a token: it signs nothing in). */
  id: string;
  client_id: string;
  client_name: string;
  /** The public id of the Nyckel session that signed it in, when known. */
  session_id: string | null;
  /** Its tokens belong to this browser's sign-in. */
  current: boolean;
  /** ISO 8601: when its longest-lived token expires. */
  expires_at: string;
}

export interface SessionsAnswer {
  sessions: SessionListing[];
  applications: ApplicationListing[];
}

/** The request's view of the OP: the browser's oidc-provider session cookie value, if any. */
export interface SessionRequest {
  session: PortalSessionWithId;
  opSessionCookie: string | undefined;
  info: ClientInfo;
  /** This browser's remembered-device cookie id and `nyckel_known` cookie, where a call needs them (thisBrowser). */
  deviceCookieId?: string | undefined;
  knownBrowser?: string | undefined;
}

/** What signing the others out did: counts for the answer and the audit, and this browser's renewed known-browser cookie. */
export interface OthersSignedOut {
  sessions: number;
  applications: number;
  /** Set it in the answer: the browser keeps its standing with the address (lockout.ts). Never logged. */
  knownBrowser: string | undefined;
}

const tokenModels = new Set(['AccessToken', 'RefreshToken']);
const grantIdPattern = /^[A-Za-z0-9_-]{1,64}$/;
const publicIdPattern = /^[A-Za-z0-9_-]{43}$/;

/**
 * The oidc-provider session uids that belong to the request's own sign-in: those its portal
 * session finished interactions on, and the browser's current OP session (SSO can mint tokens on
 * it without an interaction). The OP cookie is read unsigned: its value is the session's random
 * id, and it only counts when that session is this account's, so a forged one gains nothing.
 */
async function ownOidcSessions(ctx: Context, provider: Provider, request: SessionRequest): Promise<Set<string>> {
  const uids = new Set(await linkedOidcSessions(ctx, request.session.id));
  if (request.opSessionCookie && /^[A-Za-z0-9_-]{1,128}$/.test(request.opSessionCookie)) {
    const op = await provider.Session.find(request.opSessionCookie);
    if (op?.accountId === request.session.account_id && op.uid) {
      if (!uids.has(op.uid)) await linkOidcSession(ctx, request.session.id, op.uid);
      uids.add(op.uid);
    }
  }
  return uids;
}

/** Tokens grouped by grant: client, the OP sessions they were issued in, longest TTL. */
function grantsOf(entries: readonly AccountOidcEntry[]): Map<string, { clientId: string; sessionUids: Set<string>; ttl: number }> {
  const grants = new Map<string, { clientId: string; sessionUids: Set<string>; ttl: number }>();
  for (const entry of entries) {
    if (!tokenModels.has(entry.model) || !entry.grantId || !entry.clientId) continue;
    const grant = grants.get(entry.grantId) ?? { clientId: entry.clientId, sessionUids: new Set<string>(), ttl: 0 };
    if (entry.sessionUid) grant.sessionUids.add(entry.sessionUid);
    grant.ttl = Math.max(grant.ttl, entry.ttl);
    grants.set(entry.grantId, grant);
  }
  return grants;
}

async function clientNames(ctx: Context, clientIds: string[]): Promise<Map<string, string>> {
  if (clientIds.length === 0) return new Map();
  const rows = (await ctx.db('oidc_clients').whereIn('client_id', clientIds).select('client_id', 'metadata')) as { client_id: string; metadata: unknown }[];
  return new Map(
    rows.map((row) => {
      const metadata = (typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata) as { client_name?: unknown };
      return [row.client_id, typeof metadata.client_name === 'string' ? metadata.client_name : row.client_id];
    }),
  );
}

/** GET /api/accounts/sessions: the person's Nyckel sessions (this one first) and the applications holding tokens. */
export async function listSessions(ctx: Context, provider: Provider, request: SessionRequest): Promise<SessionsAnswer> {
  const accountId = request.session.account_id;
  const own = await ownOidcSessions(ctx, provider, request);
  const [portalSessions, entries] = await Promise.all([listPortalSessions(ctx, accountId), listAccountKeys(ctx.store, accountId)]);
  const owner = new Map<string, string>();
  for (const portal of portalSessions) {
    const uids = portal.id === request.session.id ? own : await linkedOidcSessions(ctx, portal.id);
    for (const uid of uids) owner.set(uid, publicSessionId(portal.id));
  }

  const sessions = portalSessions
    .map((portal) => ({
      id: publicSessionId(portal.id),
      current: portal.id === request.session.id,
      signed_in_at: new Date(portal.auth_time * 1000).toISOString(),
      user_agent: portal.user_agent,
      methods: portal.amr,
    }))
    .sort((a, b) => Number(b.current) - Number(a.current) || b.signed_in_at.localeCompare(a.signed_in_at));

  const grants = grantsOf(entries);
  const names = await clientNames(ctx, [...new Set([...grants.values()].map((grant) => grant.clientId))]);
  const now = ctx.now().getTime();
  const applications = [...grants].map(([id, grant]) => {
    const uid = [...grant.sessionUids].find((candidate) => owner.has(candidate));
    return {
      id,
      client_id: grant.clientId,
      client_name: names.get(grant.clientId) ?? grant.clientId,
      session_id: uid ? owner.get(uid)! : null,
      current: [...grant.sessionUids].some((candidate) => own.has(candidate)),
      expires_at: new Date(now + grant.ttl * 1000).toISOString(),
    };
  });
  applications.sort((a, b) => Number(b.current) - Number(a.current) || a.client_name.localeCompare(b.client_name) || a.id.localeCompare(b.id));
  return { sessions, applications };
}

/**
 * DELETE /api/accounts/sessions/{id}: signs one Nyckel session out, with the OP sessions it
 * signed in and their applications' refresh tokens. An id that is not one of the person's
 * sessions is 404, like a malformed one.
 */
export async function signOutSession(ctx: Context, provider: Provider, request: SessionRequest, publicId: string): Promise<void> {
  if (!publicIdPattern.test(publicId)) throw errors.notFound();
  const accountId = request.session.account_id;
  const target = (await listPortalSessions(ctx, accountId)).find((portal) => publicSessionId(portal.id) === publicId);
  if (!target) throw errors.notFound();
  const uids = target.id === request.session.id ? await ownOidcSessions(ctx, provider, request) : [];
  const grants = await endSignIn(ctx, provider, accountId, target.id, uids);
  await recordAudit(ctx.db, {
    action: 'session.revoked',
    actor_id: accountId,
    target_account_id: accountId,
    ip: request.info.ip,
    user_agent: request.info.userAgent,
    details: { session: publicId.slice(0, 12), current: target.id === request.session.id, grants },
    at: ctx.now(),
  });
}

/**
 * Ends one browser's sign-in to the account: the Nyckel session `portalId` (when there is one),
 * the OP sessions it signed in and those in `uids`, and every grant whose codes or tokens were
 * issued in one of those OP sessions (its refresh tokens with it). The person's "sign out this
 * session" and an operator's "End session" (src/admin/tokens/session-end.service.ts) both end a
 * sign-in here, so the two cannot come to mean different things. Answers the grants revoked.
 */
export async function endSignIn(ctx: Context, provider: Provider, accountId: string, portalId: string | null, uids: Iterable<string>): Promise<number> {
  const ending = new Set(uids);
  // The session goes first: from here on its cookie opens nothing, whatever happens next. With it
  // the session it was renewed to since the list was read, and the OP sessions either signed in.
  if (portalId) for (const uid of await destroyPortalSession(ctx, portalId)) ending.add(uid);
  return endOidc(provider, await listAccountKeys(ctx.store, accountId, { used: true }), {
    grant: (sessionUids) => [...sessionUids].some((uid) => ending.has(uid)),
    session: (uid) => ending.has(uid),
  });
}

/**
 * POST /api/accounts/sessions/sign-out: signs this browser out, as signing its own row out of the
 * list does: its Nyckel session, its OP sessions and the applications signed in through them.
 */
export async function signOutThisBrowser(ctx: Context, provider: Provider, request: SessionRequest): Promise<void> {
  await signOutSession(ctx, provider, request, publicSessionId(request.session.id));
}

/**
 * Signs out everywhere but here: every other Nyckel session, every OP session that is not this
 * browser's, and every application grant whose tokens were not issued in this browser's sign-in
 * (refresh tokens outlive sessions, so grants tied to no live session go too).
 *
 * What lets a browser back in more easily goes as well: the browsers remembered for the TOTP step
 * (else a browser just signed out, a stolen laptop say, is back in with the password alone) and
 * the standing of the browsers known to the address (lockout.ts). This browser keeps both when
 * the request carries its cookies (SessionRequest.deviceCookieId, knownBrowser): it is the one
 * the person is using.
 */
export async function signOutOtherSessions(ctx: Context, provider: Provider, request: SessionRequest): Promise<OthersSignedOut> {
  const { session, info } = request;
  const accountId = session.account_id;
  const own = await ownOidcSessions(ctx, provider, request);
  const others = (await listPortalSessions(ctx, accountId)).filter((portal) => portal.id !== session.id);
  for (const portal of others) await destroyPortalSession(ctx, portal.id);
  const applications = await endOidc(provider, await listAccountKeys(ctx.store, accountId, { used: true }), {
    grant: (sessionUids) => ![...sessionUids].some((uid) => own.has(uid)),
    session: (uid) => !own.has(uid),
  });
  const keep = request.deviceCookieId === undefined ? undefined : publicDeviceId(request.deviceCookieId);
  await forgetRememberedDevices(ctx, accountId, { reason: 'signed_out_others', actorId: accountId, ...info }, keep);
  // Only a browser that has its standing now keeps it (not one whose wrong passwords used it up).
  const standing = (await guesserFor(ctx, session.email, request.knownBrowser)).lane?.kind === 'known_browser';
  await forgetKnownBrowsers(ctx, session.email);
  return { sessions: others.length, applications, knownBrowser: standing ? renewedKnownBrowser(ctx, session.email, request.knownBrowser!) : undefined };
}

/**
 * This browser's known-browser cookie renewed: the same nonce, so its failure count and budget go
 * on (a new one would start them afresh, a way around the lockout for whoever holds a session),
 * issued a millisecond after the forgetting just written: a browser counts only with a cookie
 * issued after it (lockout.ts, strictly), and the two may fall in the same millisecond.
 */
function renewedKnownBrowser(ctx: Context, email: string, cookie: string): string {
  const after = new Date(ctx.now().getTime() + 1);
  return issueKnownBrowser({ config: ctx.config, now: () => after }, email, cookie.split('.')[0]);
}

/**
 * Signs the account out everywhere, for a password reset or an operator: every Nyckel session,
 * every OP session and every application grant (refresh tokens included), the browsers remembered
 * for its TOTP step, and the standing of the browsers known to its address (lockout.ts). Whoever
 * knew the old password, or holds the stolen laptop, keeps nothing it opened.
 */
export async function signOutEverywhere(ctx: Context, provider: Provider, accountId: string): Promise<{ applications: number }> {
  const account = await findAccountById(ctx.db, accountId);
  if (account) await forgetKnownBrowsers(ctx, account.email);
  await destroyAccountPortalSessions(ctx, accountId);
  const applications = await endOidc(provider, await listAccountKeys(ctx.store, accountId, { used: true }), { grant: () => true, session: () => true });
  await revokeAllRememberedDevices(ctx, accountId);
  return { applications };
}

/** POST /api/accounts/sessions/sign-out-others, audited. */
export async function signOutOthers(ctx: Context, provider: Provider, request: SessionRequest): Promise<OthersSignedOut> {
  const { knownBrowser, ...result } = await signOutOtherSessions(ctx, provider, request);
  await recordAudit(ctx.db, {
    action: 'sessions.revoked_others',
    actor_id: request.session.account_id,
    target_account_id: request.session.account_id,
    ip: request.info.ip,
    user_agent: request.info.userAgent,
    details: result,
    at: ctx.now(),
  });
  return { ...result, knownBrowser };
}

/** DELETE /api/accounts/applications/{id}: signs one application out (revokes its grant). Another's grant is 404. */
export async function revokeApplication(ctx: Context, provider: Provider, request: SessionRequest, grantId: string): Promise<void> {
  if (!grantIdPattern.test(grantId)) throw errors.notFound();
  const accountId = request.session.account_id;
  const grant = await provider.Grant.find(grantId);
  const held = grantsOf(await listAccountKeys(ctx.store, accountId)).get(grantId);
  if (!held && grant?.accountId !== accountId) throw errors.notFound();
  await revokeGrant(provider, grantId);
  await recordAudit(ctx.db, {
    action: 'grant.revoked',
    actor_id: accountId,
    target_account_id: accountId,
    ip: request.info.ip,
    user_agent: request.info.userAgent,
    details: { client_id: held?.clientId ?? grant?.clientId ?? null },
    at: ctx.now(),
  });
}
