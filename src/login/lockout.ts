import { createHash } from 'node:crypto';
import { setLockedUntil } from '../accounts/accounts.repository.ts';
import { recordAudit } from '../audit/audit.ts';
import type { Context } from '../context.ts';
import { knownBrowserDays, knownBrowserFor } from './known-browser.ts';
import { loginErrors } from './login-errors.ts';
import type { FirstFactor } from './steps.ts';

/**
 * 10 failed attempts within 15 minutes lock sign-in for 15 minutes. Each further lock while the
 * failures go on (nothing succeeds in between) lasts twice the one before, up to a day; and after
 * 100 failures in a row (NIST SP 800-63B 5.2.2: no more than 100 consecutive failed attempts on
 * one account) the email stays locked for 30 days, until a password reset ends it (the lock
 * message offers the reset). Without them, 9 guesses per window, for ever, never locked: ~860 a
 * day. A sign-in or reset in between starts the run afresh. The price: whoever knows an address
 * can now reach the 30-day lock in ~2¾ hours at 9 failures per window, where the 15-minute lock
 * ended by itself once they stopped; the owner's reset ends it.
 *
 * None of this touches a known browser (known-browser.ts): one that signed in to the email before
 * counts its own failures, and only loses its standing (counts against the email again) after
 * `maxFailures` of them since its last sign-in. So the locks above, whoever causes them, stop
 * browsers that never signed in to the address, and the owner signs in from their own.
 *
 * Nor does it touch a passkey or an upstream sign-in (lockHolds): the lock stops guessing, and
 * neither can be guessed, so the owner also signs in with either from a browser new to them. The
 * authenticator code asked after either counts in a lane of its own (the proven lane, guesserFor):
 * only someone who passed the passkey or the upstream provider reaches it, so the strangers'
 * guesses that locked the email do not stop it, and its own failures stop it.
 */
export const lockoutPolicy = {
  maxFailures: 10,
  windowSeconds: 15 * 60,
  lockSeconds: 15 * 60,
  maxLockSeconds: 24 * 3600,
  maxConsecutiveFailures: 100,
  consecutiveWindowSeconds: 30 * 24 * 3600,
} as const;

type LockContext = Pick<Context, 'store' | 'db' | 'now'>;
type KeyContext = Pick<Context, 'config'>;

/**
 * Who an attempt's failures count against: the email, or (`lane` set) a lane of its own. Build
 * it with guesserFor; `{ email }` alone is the email.
 */
export interface Guesser {
  email: string;
  /** The lane counting the attempt's failures, while it still has standing. */
  lane?: Lane;
}

/**
 * A count of failures apart from the email's, which the email's lock does not hold: a known
 * browser's (its cookie's nonce names it), or the proven lane of an email (the second factor
 * after a passkey or an upstream sign-in). Past `maxFailures` failures it loses its standing, and
 * its attempts count against the email like any other, until a sign-in through it clears it.
 */
export interface Lane {
  kind: 'known_browser' | 'proven_first_factor';
  /** Its count's name, unique across kinds. */
  name: string;
}

/**
 * Counters are kept per normalised email, whether or not an account has it: an unknown address
 * locks exactly like a real one, so the lock does not reveal which addresses exist. Keys hold a
 * hash of the address, not the address.
 */
function emailKey(email: string): string {
  return createHash('sha256').update(email.trim().toLowerCase()).digest('base64url');
}
const failuresKey = (hashed: string) => `lockout:${hashed}:failures`;
const lockKey = (hashed: string) => `lockout:${hashed}:until`;
/** Failures since the last success, over many windows (the 100 cap). */
const consecutiveKey = (hashed: string) => `lockout:${hashed}:consecutive`;
/** Locks since the last success (each lasts twice the one before). */
const locksKey = (hashed: string) => `lockout:${hashed}:locks`;
/** A lane's failures since its last sign-in: a known browser's are held as long as its cookie lives. */
const laneFailuresKey = (lane: Lane) => `lockout:${lane.name}:failures`;
const browserWindowSeconds = knownBrowserDays * 86_400;
const laneWindowSeconds = (lane: Lane) => (lane.kind === 'known_browser' ? browserWindowSeconds : lockoutPolicy.consecutiveWindowSeconds);
const provenLane = (email: string): Lane => ({ kind: 'proven_first_factor', name: `proven:${emailKey(email)}` });

/** When the email's known browsers were last forgotten (ms): cookies issued before do not count. */
const forgottenKey = (hashed: string) => `lockout:${hashed}:known-forgotten`;

/**
 * The guesser of an attempt on the email from a browser carrying `cookie` (its `nyckel_known`):
 * the known browser while it has fewer than `maxFailures` failures and its cookie was issued
 * after the address's known browsers were last forgotten; else, for a step after a first factor
 * the lock does not hold (`provenBy`: a passkey, an upstream sign-in), the email's proven lane
 * while it has fewer than `maxFailures` failures; else the email.
 */
export async function guesserFor(
  ctx: LockContext & KeyContext,
  email: string,
  cookie: string | undefined,
  provenBy?: FirstFactor | null,
): Promise<Guesser> {
  const browser = knownBrowserFor(ctx, email, cookie);
  const proven = provenBy && !lockHolds(provenBy) ? provenLane(email) : undefined;
  const browserLane: Lane | undefined = browser ? { kind: 'known_browser', name: `browser:${browser.name}` } : undefined;
  const [browserFailures, forgotten, provenFailures] = await Promise.all([
    browserLane ? ctx.store.get(laneFailuresKey(browserLane)) : undefined,
    browserLane ? ctx.store.get(forgottenKey(emailKey(email))) : undefined,
    proven ? ctx.store.get(laneFailuresKey(proven)) : undefined,
  ]);
  const standing = (failures: string | null | undefined) => Number(failures ?? 0) < lockoutPolicy.maxFailures;
  if (browserLane && browser!.issuedAt > Number(forgotten ?? 0) && standing(browserFailures)) return { email, lane: browserLane };
  if (proven && standing(provenFailures)) return { email, lane: proven };
  return { email };
}

/**
 * Every browser known to the email so far counts against the email again, until it signs in anew:
 * a password reset and signing out everywhere call it, so a stolen laptop's cookie loses its
 * standing with the sessions it held. Kept as long as a cookie lives.
 */
export async function forgetKnownBrowsers(ctx: Pick<Context, 'store' | 'now'>, email: string): Promise<void> {
  await ctx.store.set(forgottenKey(emailKey(email)), String(ctx.now().getTime()), browserWindowSeconds);
}

/** The per-email budget's key: a lane has a budget of its own, which others cannot spend. */
export function budgetKey(guesser: Guesser): string {
  return guesser.lane ? `${guesser.email}\n${guesser.lane.name}` : guesser.email;
}

/**
 * The sign-in methods the lock holds: those a stranger can guess at (a password, a mailed code, an
 * authenticator app's code). A passkey's signature and an upstream provider's sign-in cannot be
 * guessed, so the lock neither refuses nor counts them: a lock someone caused by guessing the
 * password does not shut the owner out of their passkey or their Google sign-in, from any
 * browser. Their failures are audited; the email's budget (rate-limit.ts) still bounds them.
 */
export function lockHolds(method: FirstFactor | 'totp'): boolean {
  return method !== 'webauthn' && method !== 'oidc';
}

/** Seconds left of the email's lock (0: none), or 0 for a lane, which the lock does not hold. */
export async function lockedSeconds(ctx: LockContext, guesser: Guesser): Promise<number> {
  if (guesser.lane) return 0;
  const until = Number((await ctx.store.get(lockKey(emailKey(guesser.email)))) ?? 0);
  return Math.max(0, until - ctx.now().getTime()) / 1000;
}

/**
 * Throws `account_locked` (423) while the email is locked, unless a lane is guessing.
 * The lock end is read on ctx.now()'s clock.
 */
export async function assertNotLocked(ctx: LockContext, guesser: Guesser): Promise<void> {
  const left = await lockedSeconds(ctx, guesser);
  if (left > 0) throw loginErrors.accountLocked(left);
}

/** A failed attempt of a method the lock does not hold (lockHolds): audited, counted nowhere. */
export async function auditFailure(ctx: LockContext, email: string, meta: FailureMeta): Promise<void> {
  await audit(ctx, email, meta);
}

export interface FailureMeta {
  accountId: string | null;
  method: string;
  reason: string;
  ip: string | null;
  userAgent: string | null;
}

/**
 * Counts one failure against the email, audited, without taking a place first or looking at the
 * lock: the failure reaching a limit locks the email and is answered `account_locked`; the window
 * restarts so a fresh one begins when the lock ends. Every sign-in path goes through
 * reserveAttempt; this counts failures decided elsewhere, and lets the tests build a long run of
 * them (past locks) without waiting out each one.
 */
export async function recordFailure(ctx: LockContext, email: string, meta: FailureMeta): Promise<void> {
  const consecutive = await countFailure(ctx, email, meta);
  const failures = await ctx.store.incr(failuresKey(emailKey(email)), lockoutPolicy.windowSeconds);
  // The window's `===`: of parallel failures, only the one that reaches the limit locks (each count
  // is handed out once). The run's `>=`: past the cap every failure locks again, also after an
  // operator's unlock (endLock), which keeps the run; a lock never shortens a longer one.
  if (failures === lockoutPolicy.maxFailures || consecutive >= lockoutPolicy.maxConsecutiveFailures) await lock(ctx, email, meta, consecutive);
}

/** A first-factor attempt holding its place in the email's failure count while it is verified. */
export interface ReservedAttempt {
  /** The attempt failed: audited, and the place it holds may be the one that locks. */
  failed(meta: FailureMeta): Promise<void>;
  /** The attempt succeeded, or failed in a way that does not count: its place is given back. */
  release(): Promise<void>;
}

/**
 * Takes a place in the email's failure count before a first factor is verified: parallel
 * attempts each see the places taken before them, so no more than the limit are ever verified
 * inside one window, however many arrive at once. An attempt past the limit (the last places are
 * still being verified), or one that finds the email locked meanwhile, gives its place back and
 * is answered `account_locked` unverified; the one in the last place locks when it fails.
 */
export async function reserveAttempt(ctx: LockContext, guesser: Guesser): Promise<ReservedAttempt> {
  if (guesser.lane) return reserveLaneAttempt(ctx, guesser as Required<Guesser>);
  const { email } = guesser;
  const key = failuresKey(emailKey(email));
  const place = await ctx.store.incr(key, lockoutPolicy.windowSeconds);
  const release = async () => {
    // A lock or a sign-in may have emptied the count meanwhile: it never goes below zero.
    if ((await ctx.store.incr(key, lockoutPolicy.windowSeconds, -1)) < 0) await ctx.store.del(key);
  };
  try {
    if (place > lockoutPolicy.maxFailures) throw loginErrors.accountLocked(lockoutPolicy.lockSeconds);
    await assertNotLocked(ctx, guesser);
  } catch (error) {
    await release();
    throw error;
  }
  return {
    async failed(meta) {
      const consecutive = await countFailure(ctx, email, meta);
      if (place === lockoutPolicy.maxFailures || consecutive >= lockoutPolicy.maxConsecutiveFailures) await lock(ctx, email, meta, consecutive);
    },
    release,
  };
}

/**
 * A lane's attempt: its place in the lane's own count. Past the limit (parallel attempts used the
 * last places meanwhile) the lane has lost its standing, and the attempt counts against the email
 * like any other. A failure only counts; nothing locks.
 */
async function reserveLaneAttempt(ctx: LockContext, guesser: Required<Guesser>): Promise<ReservedAttempt> {
  const key = laneFailuresKey(guesser.lane);
  const window = laneWindowSeconds(guesser.lane);
  const place = await ctx.store.incr(key, window);
  const release = async () => {
    if ((await ctx.store.incr(key, window, -1)) < 0) await ctx.store.del(key);
  };
  if (place > lockoutPolicy.maxFailures) {
    await release();
    return reserveAttempt(ctx, { email: guesser.email });
  }
  return { failed: (meta) => audit(ctx, guesser.email, meta, guesser.lane), release };
}

/** The audit details naming the lane an attempt counted in (none: the email's). */
export function laneDetails(lane: Lane | undefined): Record<string, true> {
  if (!lane) return {};
  return lane.kind === 'known_browser' ? { known_browser: true } : { proven_first_factor: true };
}

/** `login.failed`; `known_browser` or `proven_first_factor` marks a failure counted in a lane, not against the email. */
async function audit(ctx: LockContext, email: string, meta: FailureMeta, lane?: Lane): Promise<void> {
  const base = { target_account_id: meta.accountId, ip: meta.ip, user_agent: meta.userAgent, at: ctx.now() };
  const details = { method: meta.method, reason: meta.reason, email, ...laneDetails(lane) };
  await recordAudit(ctx.db, { ...base, action: 'login.failed', details });
}

/** Audits a failure and counts it in the run since the last success; answers the run's length. */
async function countFailure(ctx: LockContext, email: string, meta: FailureMeta): Promise<number> {
  await audit(ctx, email, meta);
  return ctx.store.incr(consecutiveKey(emailKey(email)), lockoutPolicy.consecutiveWindowSeconds);
}

/** How long the next lock lasts: twice the one before, up to a day; past the cap, the whole run's window. */
function lockSecondsFor(lockNumber: number, consecutive: number): number {
  if (consecutive >= lockoutPolicy.maxConsecutiveFailures) return lockoutPolicy.consecutiveWindowSeconds;
  return Math.min(lockoutPolicy.lockSeconds * 2 ** Math.min(lockNumber - 1, 16), lockoutPolicy.maxLockSeconds);
}

async function lock(ctx: LockContext, email: string, meta: FailureMeta, consecutive: number): Promise<never> {
  const hashed = emailKey(email);
  const at = ctx.now();
  const lockNumber = await ctx.store.incr(locksKey(hashed), lockoutPolicy.consecutiveWindowSeconds);
  const seconds = lockSecondsFor(lockNumber, consecutive);
  // A lock never shortens one already set (a burst's window lock landing after the 30-day one).
  const current = Number((await ctx.store.get(lockKey(hashed))) ?? 0);
  const until = new Date(Math.max(current, at.getTime() + seconds * 1000));
  if (until.getTime() > current) await ctx.store.set(lockKey(hashed), String(until.getTime()), seconds);
  await ctx.store.del(failuresKey(hashed));
  if (meta.accountId) await setLockedUntil(ctx.db, meta.accountId, until);
  await recordAudit(ctx.db, {
    target_account_id: meta.accountId,
    ip: meta.ip,
    user_agent: meta.userAgent,
    at,
    action: 'login.locked',
    details: { email, until: until.toISOString(), consecutive_failures: consecutive },
  });
  throw loginErrors.accountLocked((until.getTime() - at.getTime()) / 1000);
}

/**
 * An operator's unlock: the lock and the window's count end, the run does not. Its length (the
 * 100 cap) and its lock count (the doubling) stay until a sign-in or a reset: an unlock lets the
 * person try again, it does not buy a guesser a new run, however often it is repeated. Past the
 * cap, one more failure locks for 30 days again.
 */
export async function endLock(ctx: Pick<Context, 'store'>, email: string): Promise<void> {
  const hashed = emailKey(email);
  await ctx.store.del(failuresKey(hashed), lockKey(hashed));
}

/**
 * A successful sign-in (or a completed password reset) starts the guesser's counts, and the lock
 * lengths, afresh. A sign-in through a lane clears only that lane's count, and one with a first
 * factor the lock does not hold (`firstFactor`: a passkey, an upstream sign-in) only the proven
 * lane's: the email's counts belong to the browsers that never signed in, and an attacker's run
 * must not restart whenever the owner signs in from home or with their passkey. A sign-in that
 * ends the email's counts (and a reset) ends the proven lane's too.
 */
export async function clearFailures(ctx: Pick<Context, 'store'>, guesser: Guesser, firstFactor?: FirstFactor): Promise<void> {
  if (guesser.lane) return ctx.store.del(laneFailuresKey(guesser.lane));
  if (firstFactor && !lockHolds(firstFactor)) return ctx.store.del(laneFailuresKey(provenLane(guesser.email)));
  const hashed = emailKey(guesser.email);
  await ctx.store.del(failuresKey(hashed), lockKey(hashed), consecutiveKey(hashed), locksKey(hashed), laneFailuresKey(provenLane(guesser.email)));
}

/** Whether a sign-in by this guesser with this first factor ends the email's lock (clearFailures). */
export function signInEndsLock(guesser: Guesser, firstFactor: FirstFactor): boolean {
  return !guesser.lane && lockHolds(firstFactor);
}
