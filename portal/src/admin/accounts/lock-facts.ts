import { deviceName } from '../../../../src/http/device-name.ts';
import type { AccountLock } from '../../api/admin.ts';
import { formatUtc } from '../utc-time.ts';

/** The i18next `t` as lockFacts uses it. */
interface Translate {
  (key: string): string;
  (key: string, values: Record<string, string | number>): string;
}

/**
 * How the lock in force began, in one sentence under the lock badge: when, after how many failures
 * in a row, whether only a reset ends it early, and the address and browser of the attempt that
 * locked it. Support reads it to tell a person's own mistyping (a few failures, their own browser)
 * from an attack (a long run, a stranger's address), which docs/operations.md answers with a reset
 * rather than an unlock. The browser is named as the tokens page names it.
 */
export function lockFacts(lock: AccountLock, t: Translate): string {
  const { browser, os } = deviceName(lock.user_agent);
  const browserName = browser ?? t('profile.sessions.unknown_device');
  const device = os ? t('profile.devices.name', { browser: browserName, os }) : browserName;
  // "203.0.113.7 (Firefox on Linux)": brackets read alike in both languages.
  const from = lock.ip ? `${lock.ip} (${device})` : device;
  const time = formatUtc(lock.locked_at) ?? lock.locked_at;
  if (lock.consecutive_failures === null) return t('admin.account.lock_facts_uncounted', { time, from });
  const key = lock.until_password_reset ? 'admin.account.lock_facts_reset' : 'admin.account.lock_facts';
  return t(key, { time, count: lock.consecutive_failures, from });
}
