import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Context } from '../context.ts';
import { StoreUnavailableError } from '../store/store.ts';
import { errors } from './app-error.ts';
import { ipBudgetKey } from './ip-key.ts';

export interface LimitRule {
  points: number;
  /** Window in seconds. */
  duration: number;
}

/**
 * Budgets of the public sign-in and reset calls. They stop bulk guessing and mail bombing; the
 * per-account lockout (src/login/lockout.ts) stops guessing one account slowly.
 */
export const limitRules = {
  /** Every sign-in and reset call from one IP (offices share one address behind NAT). */
  ip: { points: 300, duration: 15 * 60 },
  /** Every sign-in and reset call naming one email, whoever sends it. */
  email: { points: 60, duration: 15 * 60 },
  /** Mails a visitor can make us send to one address: codes, notices, reset links. */
  mail: { points: 5, duration: 15 * 60 },
} as const satisfies Record<string, LimitRule>;

export type LimitName = keyof typeof limitRules;

export interface RateLimits<N extends string = LimitName> {
  /** Takes one point; throws `too_many_requests` (429, Retry-After) when the budget is spent. */
  consume(name: N, key: string): Promise<void>;
  /** Gives back a point taken by consume (or `points` of them), for a call another budget then refused. */
  refund(name: N, key: string, points?: number): Promise<void>;
}

type LimitContext = Pick<Context, 'store' | 'config'>;

/**
 * Redis-backed limiters over the RedisStore's ioredis client when the store is Redis, so every
 * instance shares the budgets; in-process limiters otherwise. Keys carry STORE_PREFIX.
 */
export function createRateLimits<N extends string = LimitName>(
  ctx: LimitContext,
  rules: Record<N, LimitRule> = limitRules as unknown as Record<N, LimitRule>,
): RateLimits<N> {
  const client = ctx.store.kind === 'redis' ? (ctx.store as unknown as { client: Redis }).client : undefined;
  const limiters = Object.fromEntries(
    (Object.keys(rules) as N[]).map((name) => {
      const options = { keyPrefix: `${ctx.config.storePrefix}rl:${name}`, ...rules[name] };
      const limiter: RateLimiterAbstract = client
        ? new RateLimiterRedis({ ...options, storeClient: client, rejectIfRedisNotReady: true })
        : new RateLimiterMemory(options);
      return [name, limiter];
    }),
  ) as Record<N, RateLimiterAbstract>;

  // An address's budget is its /64 when it is IPv6 (ip-key.ts); every other key is hashed.
  const keyOf = (name: N, key: string) => (name === 'ip' ? ipBudgetKey(key) : hashKey(key));
  return {
    async consume(name, key) {
      try {
        await limiters[name].consume(keyOf(name, key));
      } catch (err) {
        if (err instanceof RateLimiterRes) throw errors.tooMany(err.msBeforeNext / 1000);
        // The limiter's store is the store: when it is unreachable the caller gets 503, not 500.
        throw new StoreUnavailableError(`rate limiter unavailable: ${(err as Error).message}`);
      }
    },
    async refund(name, key, points = 1) {
      try {
        await limiters[name].reward(keyOf(name, key), points);
      } catch (err) {
        throw new StoreUnavailableError(`rate limiter unavailable: ${(err as Error).message}`);
      }
    },
  };
}

/** Emails are hashed before they become store keys: no addresses in Redis key names. */
function hashKey(key: string): string {
  return createHash('sha256').update(key.trim().toLowerCase()).digest('base64url');
}

const shared = new WeakMap<object, RateLimits>();

/** The limits of one running app (one per Context), shared by the sign-in and reset routers. */
export function rateLimitsFor(ctx: LimitContext): RateLimits {
  let limits = shared.get(ctx);
  if (!limits) {
    limits = createRateLimits(ctx);
    shared.set(ctx, limits);
  }
  return limits;
}

/** Middleware: one point of the per-IP budget. */
export function limitByIp(ctx: LimitContext): RequestHandler {
  const limits = rateLimitsFor(ctx);
  return async (req, _res, next) => {
    await limits.consume('ip', req.ip ?? 'unknown');
    next();
  };
}
