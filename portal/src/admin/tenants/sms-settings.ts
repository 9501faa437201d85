import type { SettingEntry } from '../../api/admin.ts';

/**
 * A tenant's SMS settings as the console shows them (spec section 3), derived from three
 * settings:
 * - `info`: { sender, warning_1, warning_2, paused, warned } (and `deactivates_at` when the server
 *   sends one; the spec lists "deactivates-at" but not where it lives);
 * - `system_sms`: { value: boolean } — SMS enabled;
 * - `sms_sign`: { name } — who signed the SMS terms. Enabled without one is "waiting for signature".
 * Values may arrive as JSON objects or as JSON text; anything unreadable counts as missing.
 */
export interface SmsSettings {
  sender: string | null;
  credits: number | null;
  warning1: number | null;
  warning2: number | null;
  signature: string | null;
  warned: boolean;
  deactivatesAt: string | null;
  enabled: boolean;
  paused: boolean;
  waitingForSignature: boolean;
}

export const SMS_KEYS = { info: 'info', enabled: 'system_sms', signature: 'sms_sign' } as const;

type Json = Record<string, unknown>;

function asObject(value: unknown): Json | null {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      return null;
    }
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Json) : null;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

function count(value: unknown): number | null {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) ? number : null;
}

function flag(value: unknown): boolean {
  return value === true || value === 'true';
}

/** The object value of setting `key`, or null. */
export function settingObject(entries: readonly SettingEntry[], key: string): Json | null {
  const entry = entries.find((item) => item.key === key);
  return entry ? asObject(entry.value) : null;
}

export function deriveSmsSettings(entries: readonly SettingEntry[], credits: number | null | undefined): SmsSettings {
  const info = settingObject(entries, SMS_KEYS.info) ?? {};
  const enabled = flag(settingObject(entries, SMS_KEYS.enabled)?.value);
  const signature = text(settingObject(entries, SMS_KEYS.signature)?.name);
  return {
    sender: text(info.sender),
    credits: count(credits),
    warning1: count(info.warning_1),
    warning2: count(info.warning_2),
    signature,
    warned: flag(info.warned),
    deactivatesAt: text(info.deactivates_at),
    enabled,
    paused: flag(info.paused),
    waitingForSignature: enabled && signature === null,
  };
}

export type SmsStatus = 'disabled' | 'paused' | 'waiting' | 'active';

/** One word for the panel's badge: off, paused, enabled but unsigned, or sending. */
export function smsStatus(sms: Pick<SmsSettings, 'enabled' | 'paused' | 'waitingForSignature'>): SmsStatus {
  if (!sms.enabled) return 'disabled';
  if (sms.paused) return 'paused';
  return sms.waitingForSignature ? 'waiting' : 'active';
}

export const SMS_STATUS_KEYS: Record<SmsStatus, string> = {
  disabled: 'admin.sms.status_disabled',
  paused: 'admin.sms.status_paused',
  waiting: 'admin.sms.status_waiting',
  active: 'admin.sms.status_active',
};

/** The setting to post to enable or disable SMS. */
export function smsEnabledSetting(enabled: boolean): SettingEntry {
  return { key: SMS_KEYS.enabled, value: { value: enabled } };
}

/** The setting to post to pause or unpause SMS: the current `info` with `paused` changed. */
export function smsPausedSetting(entries: readonly SettingEntry[], paused: boolean): SettingEntry {
  return { key: SMS_KEYS.info, value: { ...(settingObject(entries, SMS_KEYS.info) ?? {}), paused } };
}

/** The entries after the server accepted `entry`: it replaces the same key in place, or is added. */
export function withSetting(entries: readonly SettingEntry[], entry: SettingEntry): SettingEntry[] {
  if (!entries.some((item) => item.key === entry.key)) return [...entries, entry];
  return entries.map((item) => (item.key === entry.key ? entry : item));
}

/** Credits to add: a whole number above zero (the server refuses negative, non-numeric, huge). */
export const MAX_CREDITS_PER_ADD = 1_000_000;

export function parseCreditsToAdd(input: string): number | null {
  if (!/^\d+$/.test(input.trim())) return null;
  const credits = Number(input.trim());
  return credits > 0 && credits <= MAX_CREDITS_PER_ADD ? credits : null;
}

/**
 * An SMS sender as the server accepts it: an alphanumeric sender id of at most 11 ASCII letters,
 * digits and spaces with at least one letter, or a phone number.
 */
export const SMS_SENDER_PATTERN = /^(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}$|^\+?[0-9]{3,15}$/;

/** The edit form's fields, as typed. */
export interface SmsInfoDraft {
  sender: string;
  warning1: string;
  warning2: string;
}

export type SmsInfoProblem = 'sender' | 'warning_1' | 'warning_2';

const threshold = (input: string): number | null => {
  if (!/^\d+$/.test(input.trim())) return null;
  const value = Number(input.trim());
  return value <= MAX_CREDITS_PER_ADD ? value : null;
};

/** The form's starting values from the current `info`. */
export function smsInfoDraft(sms: Pick<SmsSettings, 'sender' | 'warning1' | 'warning2'>): SmsInfoDraft {
  return { sender: sms.sender ?? '', warning1: sms.warning1 === null ? '' : String(sms.warning1), warning2: sms.warning2 === null ? '' : String(sms.warning2) };
}

/**
 * The `info` setting to post from the form (the server takes the whole object: sender, both
 * warning thresholds, paused and warned, which keep their current values), or what is wrong.
 */
export function smsInfoSetting(entries: readonly SettingEntry[], draft: SmsInfoDraft): { entry: SettingEntry } | { problems: SmsInfoProblem[] } {
  const sender = draft.sender.trim();
  const warning1 = threshold(draft.warning1);
  const warning2 = threshold(draft.warning2);
  const problems: SmsInfoProblem[] = [];
  if (!SMS_SENDER_PATTERN.test(sender)) problems.push('sender');
  if (warning1 === null) problems.push('warning_1');
  if (warning2 === null) problems.push('warning_2');
  if (problems.length > 0 || warning1 === null || warning2 === null) return { problems };
  const info = settingObject(entries, SMS_KEYS.info) ?? {};
  return {
    entry: {
      key: SMS_KEYS.info,
      value: { sender, warning_1: warning1, warning_2: warning2, paused: flag(info.paused), warned: flag(info.warned) },
    },
  };
}

/** The `sms_sign` setting to post, or null when the signature is empty (it cannot be removed). */
export function smsSignatureSetting(signature: string): SettingEntry | null {
  const name = signature.trim();
  return name === '' || name.length > 100 ? null : { key: SMS_KEYS.signature, value: { name } };
}
