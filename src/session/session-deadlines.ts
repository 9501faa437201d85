/**
 * When a portal session ends: 12 h after its sign-in, and without "remember me" also after
 * SESSION_IDLE_MINUTES unused. portal-session.ts reads and writes sessions by these rules.
 */
import type { Config } from '../config/index.ts';
import type { Context } from '../context.ts';
import type { PortalSession } from './portal-session.ts';

/** The hard cap: a session ends this long after its sign-in, however much it is used. */
export const portalSessionTtlSeconds = 12 * 3600;
/**
 * last_seen is rewritten only when the stored value is at least this old, so reading a session on
 * every request does not become a write on every request. It may therefore be up to this much
 * older than the last use: an unused session ends between SESSION_IDLE_MINUTES less a minute and
 * SESSION_IDLE_MINUTES after it, never later.
 */
export const lastSeenWriteSeconds = 60;

/**
 * NIST SP 800-63B (AAL2) and ASVS 3.3.2 ask for a new sign-in after 30 minutes without use
 * (SESSION_IDLE_MINUTES), within the 12 h cap. A session signed in with "remember me" has only the
 * cap: the person chose to stay signed in on this device. Sessions from before last_seen was kept
 * count from their sign-in.
 */
export function hasEnded(config: Config, session: PortalSession, nowSeconds: number): boolean {
  const { cap, idle } = deadlines(config, session);
  return nowSeconds >= cap || (idle !== null && nowSeconds > idle);
}

/** Epoch seconds: the end of the 12 h, and of the idle time allowed from the last use (none with "remember me"). */
function deadlines(config: Config, session: PortalSession): { cap: number; idle: number | null } {
  const cap = session.created_at + portalSessionTtlSeconds;
  if (session.persistent === true) return { cap, idle: null };
  return { cap, idle: (session.last_seen ?? session.created_at) + config.sessionIdleMinutes * 60 };
}

/**
 * Seconds until the session ends if it is not used again (hasEnded). last_seen is written at
 * most once a minute, so this may be up to a minute short, never long. For the console's view of
 * an account's sessions.
 */
export function secondsLeft(ctx: Pick<Context, 'config' | 'now'>, session: PortalSession): number {
  const { cap, idle } = deadlines(ctx.config, session);
  return Math.max(0, Math.min(cap, idle ?? cap) - nowSeconds(ctx));
}

/** Seconds left of the session's 12 h, as its TTL when written again (at least 1): use does not extend the cap. */
export function capLeft(ctx: Pick<Context, 'now'>, session: PortalSession): number {
  return Math.max(1, session.created_at + portalSessionTtlSeconds - nowSeconds(ctx));
}

/** ctx.now() in epoch seconds, the unit sessions are written in. */
export function nowSeconds(ctx: Pick<Context, 'now'>): number {
  return Math.floor(ctx.now().getTime() / 1000);
}
