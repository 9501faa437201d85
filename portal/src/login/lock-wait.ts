/**
 * How long a lock still lasts, in the words the lock message uses: minutes under an hour, hours
 * under a day, then days (lockout.ts locks for 15 minutes, doubling up to a day, or for 30 days).
 * Rounded up, so a person who comes back when told never finds the account still locked.
 */
export type LockWaitUnit = 'minutes' | 'hours' | 'days';

export interface LockWait {
  unit: LockWaitUnit;
  count: number;
}

/** i18n keys of the lock message with its wait (plural: `count`), by unit. */
export const LOCK_WAIT_KEYS: Record<LockWaitUnit, string> = {
  minutes: 'errors.account_locked_minutes',
  hours: 'errors.account_locked_hours',
  days: 'errors.account_locked_days',
};

/** null when the server sent no usable Retry-After. */
export function lockWait(seconds: number | undefined): LockWait | null {
  if (seconds === undefined || !Number.isFinite(seconds) || seconds <= 0) return null;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 60) return { unit: 'minutes', count: minutes };
  const hours = Math.ceil(seconds / 3600);
  if (hours < 24) return { unit: 'hours', count: hours };
  return { unit: 'days', count: Math.ceil(seconds / 86_400) };
}
