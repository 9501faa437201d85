/**
 * A token's time to live as the two largest whole units ("2 hours 5 minutes"), for i18n keys with
 * plural forms. A negative TTL means the entry never expires (Redis answers -1).
 */
export type TtlUnit = 'days' | 'hours' | 'minutes' | 'seconds';

export interface TtlPart {
  unit: TtlUnit;
  count: number;
}

/** i18n keys of each unit (plural forms take `count`). */
export const TTL_KEYS: Record<TtlUnit, string> = {
  days: 'admin.ttl.days',
  hours: 'admin.ttl.hours',
  minutes: 'admin.ttl.minutes',
  seconds: 'admin.ttl.seconds',
};

const UNITS: [TtlUnit, number][] = [
  ['days', 86_400],
  ['hours', 3_600],
  ['minutes', 60],
  ['seconds', 1],
];

/** null: no expiry. */
export function ttlParts(seconds: number): TtlPart[] | null {
  if (!Number.isFinite(seconds) || seconds < 0) return null;
  let rest = Math.floor(seconds);
  const parts: TtlPart[] = [];
  for (const [unit, size] of UNITS) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0 || (unit === 'seconds' && parts.length === 0)) parts.push({ unit, count });
  }
  // The two largest non-zero units; a smaller one adds little on a countdown.
  const first = parts[0];
  if (!first) return [];
  const firstIndex = UNITS.findIndex(([unit]) => unit === first.unit);
  return parts.filter((part) => UNITS.findIndex(([unit]) => unit === part.unit) <= firstIndex + 1).slice(0, 2);
}
