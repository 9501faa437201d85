import { z } from 'zod';
import { smsCreditsKey } from './tenants.repository.ts';

/**
 * Shapes of the tenant settings Nyckel and the console understand (spec section 3). Other keys are
 * free-form JSON for the tenants' apps.
 */

/**
 * An SMS sender as operators' networks accept it: an alphanumeric sender id of at most 11 ASCII
 * letters, digits and spaces (with at least one letter), or a phone number.
 */
export const smsSenderSchema = z
  .string()
  .trim()
  .regex(/^(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}$|^\+?[0-9]{3,15}$/, 'Sender must be 1–11 letters, digits or spaces, or a phone number');

const creditThreshold = z.number().int().min(0).max(1_000_000);

/** `info`: the tenant's SMS sender, the two low-credit warning thresholds, and the paused / warned flags. */
export const smsInfoSchema = z.strictObject({
  sender: smsSenderSchema,
  warning_1: creditThreshold,
  warning_2: creditThreshold,
  paused: z.boolean(),
  warned: z.boolean(),
});

/** `system_sms`: SMS enabled for the tenant. */
export const systemSmsSchema = z.strictObject({ value: z.boolean() });

/** `sms_sign`: the signature appended to messages; absent means "waiting for signature". */
export const smsSignSchema = z.strictObject({ name: z.string().trim().min(1).max(100) });

export const smsSettingKeys = ['info', 'system_sms', 'sms_sign'] as const;
export type SmsSettingKey = (typeof smsSettingKeys)[number];

export function isSmsSettingKey(key: string): key is SmsSettingKey {
  return (smsSettingKeys as readonly string[]).includes(key);
}

export const smsSettingBody = z.discriminatedUnion('key', [
  z.strictObject({ key: z.literal('info'), value: smsInfoSchema }),
  z.strictObject({ key: z.literal('system_sms'), value: systemSmsSchema }),
  z.strictObject({ key: z.literal('sms_sign'), value: smsSignSchema }),
]);

/** Integrations billed on the invoice. */
export const integrationNames = ['alva', 'refapp', 'sri', 'sri_ref', 'evali'] as const;

/**
 * Known keys of the general settings and the shape each must have; sms_credits is only ever added
 * to. A Map, not an object literal: keys come from the request, and `constructor` or `__proto__`
 * would find Object.prototype's members in an object and take them for a schema.
 */
const knownSettings = new Map<string, z.ZodType>([
  ['info', smsInfoSchema],
  ['system_sms', systemSmsSchema],
  ['sms_sign', smsSignSchema],
  ['system_cronofy', z.strictObject({ value: z.boolean() })],
  ['integrations', z.strictObject(Object.fromEntries(integrationNames.map((name) => [name, z.boolean().optional()])))],
]);

export const settingKeySchema = z.string().regex(/^[a-z0-9_.-]{1,64}$/, 'Key must be 1–64 lowercase letters, digits, _ . or -');

/**
 * Values are stored as jsonb. Deeper than this they would overflow z.json()'s recursive check
 * (a 500), and NUL characters cannot be stored in PostgreSQL at all: both are refused up front.
 */
const maxValueDepth = 32;
function storable(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return !value.includes('\u0000');
  if (value === null || typeof value !== 'object') return true;
  if (depth >= maxValueDepth) return false;
  return Object.entries(value).every(([key, item]) => !key.includes('\u0000') && storable(item, depth + 1));
}
const settingValue = z.unknown().refine(storable, `Value must be JSON at most ${maxValueDepth} levels deep, without NUL characters`).pipe(z.json());

/** `{key, value}` of the general settings: known keys are checked against their shape (and normalised by it). */
export const settingBody = z.strictObject({ key: settingKeySchema, value: settingValue }).transform(({ key, value }, ctx) => {
  if (key === smsCreditsKey) {
    ctx.addIssue({ code: 'custom', path: ['key'], message: 'SMS credits are added through /settings/sms/credits' });
    return z.NEVER;
  }
  const schema = knownSettings.get(key);
  if (!schema) return { key, value: value as unknown };
  const result = schema.safeParse(value);
  if (!result.success) {
    for (const issue of result.error.issues) ctx.addIssue({ code: 'custom', path: ['value', ...issue.path], message: issue.message });
    return z.NEVER;
  }
  return { key, value: result.data as unknown };
});

/** Credits are added in whole numbers, at most a million at a time (a typo guard, not a business cap). */
export const addCreditsBody = z.strictObject({ credits: z.number().int().min(1).max(1_000_000) });

/** What the invoice and the console read of a tenant's settings; anything missing or malformed is off. */
export interface TenantFunctions {
  system_sms: boolean;
  system_cronofy: boolean;
}
export type TenantIntegrations = Record<(typeof integrationNames)[number], boolean>;

const flag = (value: unknown) => typeof value === 'object' && value !== null && (value as { value?: unknown }).value === true;

export function functionsOf(settings: ReadonlyMap<string, unknown>): TenantFunctions {
  return { system_sms: flag(settings.get('system_sms')), system_cronofy: flag(settings.get('system_cronofy')) };
}

export function integrationsOf(settings: ReadonlyMap<string, unknown>): TenantIntegrations {
  const stored = settings.get('integrations');
  const record = typeof stored === 'object' && stored !== null ? (stored as Record<string, unknown>) : {};
  return Object.fromEntries(integrationNames.map((name) => [name, record[name] === true])) as TenantIntegrations;
}

/** The tenant's SMS sender is the `sender` of its `info` setting: posting `info` updates it. */
export function smsSenderOf(settings: ReadonlyMap<string, unknown>): string | null {
  const info = settings.get('info');
  const sender = typeof info === 'object' && info !== null ? (info as { sender?: unknown }).sender : undefined;
  return typeof sender === 'string' ? sender : null;
}
