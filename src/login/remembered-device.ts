import { createHash, randomBytes } from 'node:crypto';
import type { Request } from 'express';
import type { Config } from '../config/index.ts';
import type { Context } from '../context.ts';
import { readAuthCookie, type AuthCookie } from '../http/cookies.ts';

/**
 * "Remember this device" after a TOTP code: the browser gets the signed HttpOnly cookie
 * `nyckel_device` (`__Host-nyckel_device` over HTTPS, src/http/cookies.ts) holding a random id; the store keeps the device under the SHA-256 of that id
 * (`device:<public id>`), indexed per account. The public id is what the profile lists and
 * revokes: it names a device without being usable as its cookie, and a store dump holds no
 * cookie value. A device skips the TOTP step only for the account that remembered it.
 */
export interface RememberedDevice {
  account_id: string;
  user_agent: string | null;
  /** ISO 8601. */
  created_at: string;
  last_used_at: string;
  /** ms on ctx.now()'s clock; checked as well as the store TTL so tests can move time. */
  expires_at: number;
}

export interface DeviceListing {
  id: string;
  user_agent: string | null;
  created_at: string;
  last_used_at: string;
  /** This browser's device. */
  current: boolean;
}

type DeviceContext = Pick<Context, 'store' | 'config' | 'now'>;

const deviceKey = (publicId: string) => `device:${publicId}`;
const accountIndex = (accountId: string) => `account:${accountId}:devices`;

export function publicDeviceId(cookieId: string): string {
  return createHash('sha256').update(`nyckel device:${cookieId}`).digest('base64url');
}

const periodSeconds = (config: Config) => config.rememberDeviceDays * 86_400;

export const deviceCookie: AuthCookie = { name: 'nyckel_device', maxAgeSeconds: periodSeconds };

/** The id in this browser's signed remembered-device cookie, or undefined (absent or tampered). */
export function deviceCookieId(req: Request, config: Pick<Config, 'secureCookies'>): string | undefined {
  return readAuthCookie(req, config, deviceCookie);
}

async function load(ctx: DeviceContext, publicId: string): Promise<RememberedDevice | null> {
  const raw = await ctx.store.get(deviceKey(publicId));
  if (!raw) return null;
  const device = JSON.parse(raw) as RememberedDevice;
  return device.expires_at > ctx.now().getTime() ? device : null;
}

/**
 * Remembers this browser for the account for REMEMBER_DEVICE_DAYS; returns the new cookie value.
 * A device the browser carried before is forgotten: its cookie is being replaced.
 */
export async function rememberDevice(
  ctx: DeviceContext,
  accountId: string,
  userAgent: string | null,
  previousCookieId: string | undefined,
): Promise<string> {
  if (previousCookieId) await forgetDevice(ctx, publicDeviceId(previousCookieId));
  const cookieId = randomBytes(32).toString('base64url');
  const now = ctx.now();
  const ttl = periodSeconds(ctx.config);
  const device: RememberedDevice = {
    account_id: accountId,
    user_agent: userAgent?.slice(0, 512) ?? null,
    created_at: now.toISOString(),
    last_used_at: now.toISOString(),
    expires_at: now.getTime() + ttl * 1000,
  };
  const publicId = publicDeviceId(cookieId);
  await ctx.store.set(deviceKey(publicId), JSON.stringify(device), ttl);
  await ctx.store.sadd(accountIndex(accountId), publicId, ttl);
  return cookieId;
}

/**
 * The browser's remembered device when it exists, has not expired and belongs to this account.
 * A device of another account (a shared computer) is never honoured.
 */
export async function findRememberedDevice(
  ctx: DeviceContext,
  cookieId: string | undefined,
  accountId: string,
): Promise<{ publicId: string; device: RememberedDevice } | null> {
  if (!cookieId) return null;
  const publicId = publicDeviceId(cookieId);
  const device = await load(ctx, publicId);
  return device && device.account_id === accountId ? { publicId, device } : null;
}

/** Records that the device just skipped the TOTP step; its expiry stays where it was. */
export async function touchRememberedDevice(ctx: DeviceContext, publicId: string, device: RememberedDevice): Promise<void> {
  const ttl = Math.ceil((device.expires_at - ctx.now().getTime()) / 1000);
  if (ttl <= 0) return;
  await ctx.store.set(deviceKey(publicId), JSON.stringify({ ...device, last_used_at: ctx.now().toISOString() }), ttl);
}

/** The account's live devices, newest first; entries whose device expired are pruned from the index. */
export async function listRememberedDevices(ctx: DeviceContext, accountId: string, currentCookieId: string | undefined): Promise<DeviceListing[]> {
  const current = currentCookieId ? publicDeviceId(currentCookieId) : undefined;
  const listed: DeviceListing[] = [];
  for (const publicId of await ctx.store.smembers(accountIndex(accountId))) {
    const device = await load(ctx, publicId);
    if (!device || device.account_id !== accountId) {
      await ctx.store.srem(accountIndex(accountId), publicId);
      continue;
    }
    const { user_agent, created_at, last_used_at } = device;
    listed.push({ id: publicId, user_agent, created_at, last_used_at, current: publicId === current });
  }
  return listed.sort((a, b) => b.created_at.localeCompare(a.created_at));
}

/** Revokes one of the account's devices; false when the account has no such device. */
export async function revokeRememberedDevice(ctx: DeviceContext, accountId: string, publicId: string): Promise<boolean> {
  const device = await load(ctx, publicId);
  if (!device || device.account_id !== accountId) return false;
  await forgetDevice(ctx, publicId);
  return true;
}

/**
 * Revokes every remembered device of the account (its authenticator was replaced or removed), or
 * every one but `keep` (a public id: the browser signing the others out).
 */
export async function revokeAllRememberedDevices(ctx: DeviceContext, accountId: string, keep?: string): Promise<void> {
  const ids = await ctx.store.smembers(accountIndex(accountId));
  if (keep === undefined || !ids.includes(keep)) {
    await ctx.store.del(...ids.map(deviceKey), accountIndex(accountId));
    return;
  }
  const others = ids.filter((id) => id !== keep);
  if (others.length === 0) return;
  await ctx.store.del(...others.map(deviceKey));
  for (const id of others) await ctx.store.srem(accountIndex(accountId), id);
}

async function forgetDevice(ctx: DeviceContext, publicId: string): Promise<void> {
  const raw = await ctx.store.getDel(deviceKey(publicId));
  if (raw) await ctx.store.srem(accountIndex((JSON.parse(raw) as RememberedDevice).account_id), publicId);
}
