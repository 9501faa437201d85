/**
 * "Last used" in the spec's relative words (section 9): today, yesterday, days under a week,
 * weeks under 30 days, months under a year, then years. Days are calendar days in local time.
 */
export type RelativeUnit = 'today' | 'yesterday' | 'days' | 'weeks' | 'months' | 'years';

export interface RelativeTime {
  unit: RelativeUnit;
  count: number;
}

/** i18n keys of each unit (plural ones take `count`). */
export const RELATIVE_TIME_KEYS: Record<RelativeUnit, string> = {
  today: 'time.today',
  yesterday: 'time.yesterday',
  days: 'time.days',
  weeks: 'time.weeks',
  months: 'time.months',
  years: 'time.years',
};

const DAY_MS = 86_400_000;

function localMidnight(date: Date): number {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
}

/** null for a missing or unreadable time. A time in the future counts as today. */
export function relativeTime(at: string | null | undefined, now: Date): RelativeTime | null {
  if (!at) return null;
  const then = new Date(at);
  if (Number.isNaN(then.getTime())) return null;
  // Rounded: a day across a daylight-saving change is 23 or 25 hours long.
  const days = Math.max(0, Math.round((localMidnight(now) - localMidnight(then)) / DAY_MS));
  if (days === 0) return { unit: 'today', count: 0 };
  if (days === 1) return { unit: 'yesterday', count: 1 };
  if (days < 7) return { unit: 'days', count: days };
  if (days < 30) return { unit: 'weeks', count: Math.floor(days / 7) };
  if (days < 365) return { unit: 'months', count: Math.max(1, Math.floor(days / 30)) };
  return { unit: 'years', count: Math.floor(days / 365) };
}
