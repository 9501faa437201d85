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

const DAY_MS = 86_400_000;

const localMidnight = (date: Date) => new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();

/** A missing or unreadable time is "never"; a time in the future counts as today. */
export function lastLogin(at: string | null | undefined, now: Date): LastLogin {
  const then = at ? new Date(at) : null;
  if (!then || Number.isNaN(then.getTime())) return { unit: 'never', count: 0 };
  // Rounded: a day across a daylight-saving change is 23 or 25 hours long.
  const days = Math.max(0, Math.round((localMidnight(now) - localMidnight(then)) / DAY_MS));
  if (days === 0) return { unit: 'today', count: 0 };
  if (days === 1) return { unit: 'yesterday', count: 1 };
  if (days < 7) return { unit: 'days', count: days };
  if (days < 30) return { unit: 'weeks', count: Math.floor(days / 7) };
  if (days < 365) return { unit: 'months', count: Math.max(1, Math.floor(days / 30)) };
  return { unit: 'years', count: Math.floor(days / 365) };
}
