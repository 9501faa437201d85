import { relativeTime } from '../../profile/relative-time.ts';

/**
 * Last login in the spec's relative words (section 9): today, yesterday, days under a week, weeks
 * under 30 days, months under 365 days, then years. Counted in calendar days of the operator's
 * local time, so "yesterday" means the previous date, not 24 hours ago.
 */
export type LastLoginUnit = 'never' | 'today' | 'yesterday' | 'days' | 'weeks' | 'months' | 'years';

export interface LastLogin {
  unit: LastLoginUnit;
  count: number;
}

/** i18n key of each unit; the plural ones take `count` (`_one` / `_other` forms). */
export const LAST_LOGIN_KEYS: Record<LastLoginUnit, string> = {
  never: 'admin.last_login.never',
  today: 'admin.last_login.today',
  yesterday: 'admin.last_login.yesterday',
  days: 'admin.last_login.days',
  weeks: 'admin.last_login.weeks',
  months: 'admin.last_login.months',
  years: 'admin.last_login.years',
};

/** A missing or unreadable time is "never"; otherwise the profile's relative wording. */
export function lastLogin(at: string | null | undefined, now: Date): LastLogin {
  return relativeTime(at, now) ?? { unit: 'never', count: 0 };
}
