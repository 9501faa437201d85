import { createHash, randomBytes } from 'node:crypto';
import type { CookieOptions, Request, Response } from 'express';
import type { Config } from '../config/index.ts';
import type { Context } from '../context.ts';
import { portalCookieNameFor, portalSessionId } from './portal-cookie.ts';
import { capLeft, hasEnded, lastSeenWriteSeconds, nowSeconds, portalSessionTtlSeconds } from './session-deadlines.ts';

/**
 * The signed-in session of the portal (profile, tenant selection, the OAuth interaction
 * hand-off). Kept in the store under `session:<id>`; the browser holds only the id, in the
 * signed HttpOnly cookie `nyckel_session`.
 */
export interface PortalSession {
  account_id: string;
  email: string;
  /** RFC 8176 methods: ['pwd'] for a password, ['otp'] for an email code; 'otp' is one factor. */
  amr: string[];
  /** Epoch seconds of the sign-in. */
  auth_time: number;
  /** Epoch seconds. */
  created_at: number;
  ip: string | null;
  user_agent: string | null;
  /** "Remember me": the cookie outlives the browser. Absent in sessions written before it was kept. */
  persistent?: boolean;
  /**
   * Epoch seconds (ctx.now()'s clock) of the session's last use, written at most once a minute
   * (lastSeenWriteSeconds). Absent until then, and in sessions written before it was kept: the
   * session was last seen at created_at.
   */
  last_seen?: number;
}

export interface PortalSessionWithId extends PortalSession {
  id: string;
}

export type SessionContext = Pick<Context, 'store' | 'config' | 'now'>;

/**
 * How long a session's end is remembered, for a renewal of it under way (raisePortalSession). Far
 * longer than a request takes between reading a session and renewing it: every store command
 * fails after 2 s.
 */
const endedGuardSeconds = 10 * 60;
const key = (id: string) => `session:${id}`;
/**
 * The account's sessions. Members are session keys (`session:<id>`, as setIndexed writes them);
 * sets written before that hold bare ids, which idOf() reads as well.
 */
const accountIndex = (accountId: string) => `account:${accountId}:sessions`;
const idOf = (member: string) => (member.startsWith('session:') ? member.slice('session:'.length) : member);
/** The uids of the oidc-provider sessions this portal session signed in (see linkOidcSession). */
const oidcLinks = (id: string) => `session:${id}:oidc`;
/**
 * Written when a session ends, before it is deleted: `ended` by a sign-out, `renewed:<new id>` by
 * a renewal (raisePortalSession), which a sign-out of the old id that comes after it follows.
 */
const endedGuard = (id: string) => `session:${id}:ended`;
const renewedTo = (guard: string | null) => (guard?.startsWith('renewed:') ? guard.slice('renewed:'.length) : null);

/**
 * The name of a session in the profile's list: it names the session without being usable as its
 * cookie (the id itself is the bearer secret and never leaves the server).
 */
export function publicSessionId(id: string): string {
  return createHash('sha256').update(`nyckel session:${id}`).digest('base64url');
}

export function portalCookieOptions(config: Config, persistent: boolean): CookieOptions {
  return {
    httpOnly: true,
    sameSite: 'lax',
    secure: config.secureCookies,
    path: '/',
    signed: true,
    // "Remember me" keeps the cookie after the browser closes; the server-side cap is the same
    // (and only sessions without it also end after SESSION_IDLE_MINUTES unused).
    ...(persistent ? { maxAge: portalSessionTtlSeconds * 1000 } : {}),
  };
}

/** A sign-in prunes the account's index of ended sessions once it lists more than this many. */
export const pruneIndexAbove = 8;

/** 256 random bits: the cookie's value, and the bearer secret of the session. */
const newSessionId = () => randomBytes(32).toString('base64url');

/**
 * Creates a session with a fresh random id (never reusing one the browser sent: no fixation).
 * The session and its entry in the account's index are written in one atomic step, so signing
 * the account out everywhere always finds it.
 */
export async function createPortalSession(
  ctx: SessionContext,
  data: Omit<PortalSession, 'created_at'>,
): Promise<PortalSessionWithId> {
  const id = newSessionId();
  const session: PortalSession = { ...data, created_at: Math.floor(ctx.now().getTime() / 1000) };
  const indexed = await ctx.store.setIndexed(key(id), JSON.stringify(session), portalSessionTtlSeconds, [accountIndex(data.account_id)]);
  // Each sign-in lengthens the index's life: without pruning, an account that signs in every few
  // hours (a monitoring probe, a shared account) would keep every session it ever had listed.
  // Pruned once it holds more than a few: reading every listed session at each sign-in cost the
  // sign-in a store command per session.
  if (indexed > pruneIndexAbove) await listPortalSessions(ctx, data.account_id);
  return { id, ...session };
}

/**
 * The session `id` as its holder uses it: every request of the browser holding its cookie, and
 * every authorization an oidc-provider session it signed in asks of it (a relying party's silent
 * renew counts as use, as in Keycloak). Records the use (last_seen). A session that has been
 * idle too long, or is past its 12 h, is ended here and reads as null.
 */
export async function getPortalSessionById(ctx: SessionContext, id: string): Promise<PortalSessionWithId | null> {
  const read = await readLiveSession(ctx, id);
  if (!read) return null;
  await touch(ctx, read);
  return read.session;
}

/**
 * Reads a session without counting it as used (listing an account's sessions reads every one of
 * them). One that has ended is destroyed, so it also leaves the account's index.
 */
async function readLiveSession(ctx: SessionContext, id: string): Promise<{ session: PortalSessionWithId; raw: string } | null> {
  const raw = await ctx.store.get(key(id));
  if (!raw) return null;
  const session: PortalSessionWithId = { id, ...(JSON.parse(raw) as PortalSession) };
  if (!hasEnded(ctx.config, session, nowSeconds(ctx))) return { session, raw };
  await destroyPortalSession(ctx, id);
  return null;
}

/**
 * Records a use of the session, at most once a minute, by writing back what was read only if
 * nothing was written since: a session a sign-out deleted meanwhile, or one renewed under a new
 * id (raisePortalSession), is not written back from this older copy.
 */
async function touch(ctx: SessionContext, { session, raw }: { session: PortalSessionWithId; raw: string }): Promise<void> {
  const now = nowSeconds(ctx);
  if (now - (session.last_seen ?? session.created_at) < lastSeenWriteSeconds) return;
  const { id, ...stored } = session;
  await ctx.store.replaceIfUnchanged(key(id), raw, JSON.stringify({ ...stored, last_seen: now }), capLeft(ctx, stored));
}

/**
 * Adds authentication methods to a live session, when the person proved a factor in it after
 * signing in: activating their first authenticator app takes a code of it, so the session has
 * then proved the password (or email code) and the authenticator (RFC 8176 `otp` and `mfa`), as
 * Keycloak counts the OTP configured at sign-in. Without it, the person who just turned on the
 * app would be sent to sign in again before adding a passkey. The sign-in's auth_time and its
 * 12 h are kept.
 *
 * The raised session gets a new id, which the caller sets as the cookie: the session id is renewed
 * on every change of privilege level (OWASP's session management guidance, ASVS 3.2.1), so a copy
 * of the old cookie, taken before, does not gain the second factor. The old id ends as a sign-out
 * ends it, except that the OP sessions it signed in move to the new id with their applications.
 *
 * Null when the old session ended meanwhile (a sign-out of it raced this): nothing is raised, and
 * the new session is ended too. A sign-out and this both claim the old id's guard (setIfAbsent)
 * before they delete it, so whichever comes second sees the other: a sign-out that comes second
 * (a revoke from another browser that listed the sessions a moment before) finds the new id in
 * the guard and ends that session too. Signing the account out everywhere reads the index once
 * more after its first pass, for a session renewed meanwhile.
 */
export async function raisePortalSession(
  ctx: SessionContext,
  session: PortalSessionWithId,
  methods: readonly string[],
): Promise<PortalSessionWithId | null> {
  const amr = [...new Set([...session.amr, ...methods])];
  if (amr.length === session.amr.length) return session;
  const { id: oldId, ...stored } = session;
  const raised: PortalSession = { ...stored, amr, last_seen: nowSeconds(ctx) };
  const id = newSessionId();
  await ctx.store.setIndexed(key(id), JSON.stringify(raised), capLeft(ctx, raised), [accountIndex(raised.account_id)]);
  const uids = await ctx.store.smembers(oidcLinks(oldId));
  await Promise.all(uids.map((uid) => ctx.store.sadd(oidcLinks(id), uid, portalSessionTtlSeconds)));
  await Promise.all(uids.map(async (uid) => {
    if ((await signingInSession(ctx, uid)) === oldId) await linkSigningIn(ctx, uid, id);
  }));
  const ended = !(await ctx.store.setIfAbsent(endedGuard(oldId), `renewed:${id}`, endedGuardSeconds)) || !(await ctx.store.getDel(key(oldId)));
  await ctx.store.srem(accountIndex(raised.account_id), key(oldId));
  await ctx.store.del(oidcLinks(oldId));
  if (ended) {
    await destroyPortalSession(ctx, id);
    return null;
  }
  return { id, ...raised };
}

/**
 * Signs the session `id` out, and the session it was renewed to if a renewal claimed it first
 * (raisePortalSession): a revoke decided on the old id still ends the session it became. Answers
 * the uids of the OP sessions the ended sessions had signed in (linkOidcSession), read before
 * their links go, for the caller that ends those too.
 */
export async function destroyPortalSession(ctx: SessionContext, id: string): Promise<string[]> {
  // The guard first: a renewal that read the session before this delete does not outlive it.
  const renewal = (await ctx.store.setIfAbsent(endedGuard(id), 'ended', endedGuardSeconds)) ? null : renewedTo(await ctx.store.get(endedGuard(id)));
  const uids = await ctx.store.smembers(oidcLinks(id));
  // One atomic read-and-delete: the session is gone before its bookkeeping is.
  const raw = await ctx.store.getDel(key(id));
  // An index entry in the old form (the bare id) is left to listPortalSessions to prune.
  if (raw) await ctx.store.srem(accountIndex((JSON.parse(raw) as PortalSession).account_id), key(id));
  await ctx.store.del(oidcLinks(id));
  return renewal ? [...new Set([...uids, ...(await destroyPortalSession(ctx, renewal))])] : uids;
}

/**
 * Records that this portal session finished an OAuth interaction on the oidc-provider session
 * `uid` (the browser's OP session): the profile then shows that session's applications under it,
 * and signing the portal session out also revokes their grants. A set, so concurrent interactions
 * never lose each other's uid.
 */
export async function linkOidcSession(ctx: SessionContext, portalSessionId: string, uid: string): Promise<void> {
  await ctx.store.sadd(oidcLinks(portalSessionId), uid, portalSessionTtlSeconds);
}

/**
 * The other direction: the portal session that signed the provider session `uid` in, which
 * portal-session-check.ts asks of every authorization the provider session answers by itself.
 */
const signedInBy = (uid: string) => `oidc-session:${uid}:portal`;

/** Records that the portal session `portalId` signed the provider session `uid` in. */
export async function linkSigningIn(ctx: SessionContext, uid: string, portalId: string): Promise<void> {
  await ctx.store.set(signedInBy(uid), portalId, portalSessionTtlSeconds);
}

/** The portal session that signed the provider session `uid` in, if one did. */
export async function signingInSession(ctx: SessionContext, uid: string): Promise<string | null> {
  return ctx.store.get(signedInBy(uid));
}

export async function linkedOidcSessions(ctx: SessionContext, portalSessionId: string): Promise<string[]> {
  return ctx.store.smembers(oidcLinks(portalSessionId));
}

/**
 * Live sessions of an account; ids whose session expired or idled out are pruned from the index
 * (a sign-in lists them for that alone once the index has grown past pruneIndexAbove). Listing is not use: it leaves every session's
 * last_seen as it was.
 */
export async function listPortalSessions(ctx: SessionContext, accountId: string): Promise<PortalSessionWithId[]> {
  const live: PortalSessionWithId[] = [];
  for (const member of await ctx.store.smembers(accountIndex(accountId))) {
    const read = await readLiveSession(ctx, idOf(member));
    if (read) live.push(read.session);
    else await ctx.store.srem(accountIndex(accountId), member);
  }
  return live;
}

/**
 * Signs the account out everywhere (after a password reset, or by an operator). Twice over the
 * index: a session renewed while the first pass ran (raisePortalSession) is in the second. Entries
 * are removed one by one, never the whole index, so the second pass finds one added meanwhile.
 */
export async function destroyAccountPortalSessions(ctx: SessionContext, accountId: string): Promise<void> {
  for (let pass = 0; pass < 2; pass += 1) {
    const members = await ctx.store.smembers(accountIndex(accountId));
    if (members.length === 0) return;
    const ids = members.map(idOf);
    // The guards first, as destroyPortalSession writes its own, in one round trip.
    const guards = ids.map((id) => ({ key: endedGuard(id), value: 'ended', ttlSeconds: endedGuardSeconds, sets: [] }));
    await ctx.store.claimAndWrite(null, guards);
    await ctx.store.del(...ids.map(key), ...ids.map(oidcLinks));
    await Promise.all(members.map((member) => ctx.store.srem(accountIndex(accountId), member)));
  }
}

/** The portal session of a request, or null. For the OAuth interaction route and the profile API. */
export async function getPortalSession(ctx: SessionContext, req: Request): Promise<PortalSessionWithId | null> {
  const id = portalSessionId(ctx.config, req);
  return id ? getPortalSessionById(ctx, id) : null;
}

export function setPortalSessionCookie(res: Response, config: Config, id: string, persistent: boolean): void {
  res.cookie(portalCookieNameFor(config), id, portalCookieOptions(config, persistent));
}

export function clearPortalSessionCookie(res: Response, config: Config): void {
  const { maxAge: _maxAge, ...options } = portalCookieOptions(config, false);
  res.clearCookie(portalCookieNameFor(config), options);
}
