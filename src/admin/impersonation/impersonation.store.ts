import { createHash, randomBytes } from 'node:crypto';
import type { Context } from '../../context.ts';

/** Seconds the hand-off link works; and, once opened, how long the tenant app has to ask for the sign-in. */
export const handOffSeconds = 60;

export type ImpersonationKind = 'user' | 'admin';

/** One impersonation as the server keeps it; never sent to a browser. */
export interface Impersonation {
  operator_id: string;
  operator_email: string;
  /** The portal session that asked for the hand-off: only that browser may open it. */
  portal_session_id: string;
  account_id: string;
  tenant_id: string;
  as: ImpersonationKind;
  /** The tenant app's clients: only their authorization requests may use the hand-off. */
  client_ids: string[];
  /** Where the browser goes so the tenant app starts its sign-in. */
  entry_url: string;
  /** Epoch ms on ctx.now(). The store's TTL only cleans up; this decides. */
  expires_at: number;
}

/** What the tokens of an impersonated grant carry. `act` has the RFC 8693 shape. */
export interface ImpersonatedGrant {
  act: { sub: string; email: string };
  account_id: string;
  tenant_id: string;
  as: ImpersonationKind;
}

type StoreContext = Pick<Context, 'store' | 'now'>;

// Hand-off tokens are kept by their SHA-256 only: a copy of the store cannot be replayed as a link.
const handOffKey = (token: string) => `impersonation:handoff:${createHash('sha256').update(token).digest('base64url')}`;
const pendingKey = (portalSessionId: string) => `impersonation:pending:${portalSessionId}`;
const grantKey = (grantId: string) => `impersonation:grant:${grantId}`;

const live = (ctx: StoreContext, raw: string | null): Impersonation | null => {
  if (!raw) return null;
  const impersonation = JSON.parse(raw) as Impersonation;
  return impersonation.expires_at > ctx.now().getTime() ? impersonation : null;
};

/** Stores the hand-off under a random 256-bit token and answers the token. */
export async function createHandOff(ctx: StoreContext, impersonation: Omit<Impersonation, 'expires_at'>): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  const record: Impersonation = { ...impersonation, expires_at: ctx.now().getTime() + handOffSeconds * 1000 };
  await ctx.store.set(handOffKey(token), JSON.stringify(record), handOffSeconds);
  return token;
}

/**
 * The hand-off without using it up, to check who is opening the link before takeHandOff: a
 * refused opening (a link-preview bot, another person) must not spend it.
 */
export async function peekHandOff(ctx: StoreContext, token: string): Promise<Impersonation | null> {
  return live(ctx, await ctx.store.get(handOffKey(token)));
}

/** Single use: read and removed in one step, so of two openings exactly one gets it. */
export async function takeHandOff(ctx: StoreContext, token: string): Promise<Impersonation | null> {
  return live(ctx, await ctx.store.getDel(handOffKey(token)));
}

/**
 * Binds an opened hand-off to the operator's signed-in browser (their portal session) until the
 * tenant app's authorization request arrives, for another `handOffSeconds`.
 */
export async function setPending(ctx: StoreContext, portalSessionId: string, impersonation: Impersonation): Promise<void> {
  const record: Impersonation = { ...impersonation, expires_at: ctx.now().getTime() + handOffSeconds * 1000 };
  await ctx.store.set(pendingKey(portalSessionId), JSON.stringify(record), handOffSeconds);
}

export async function peekPending(ctx: StoreContext, portalSessionId: string): Promise<Impersonation | null> {
  return live(ctx, await ctx.store.get(pendingKey(portalSessionId)));
}

export async function takePending(ctx: StoreContext, portalSessionId: string): Promise<Impersonation | null> {
  return live(ctx, await ctx.store.getDel(pendingKey(portalSessionId)));
}

export async function saveImpersonatedGrant(ctx: StoreContext, grantId: string, grant: ImpersonatedGrant, ttlSeconds: number): Promise<void> {
  await ctx.store.set(grantKey(grantId), JSON.stringify(grant), ttlSeconds);
}

export async function findImpersonatedGrant(ctx: StoreContext, grantId: string): Promise<ImpersonatedGrant | null> {
  const raw = await ctx.store.get(grantKey(grantId));
  return raw ? (JSON.parse(raw) as ImpersonatedGrant) : null;
}
