/** Count badges cap at 99+ (spec section 9). */
export const COUNT_CAP = 99;

export function capCount(count: number): string {
  if (!Number.isFinite(count) || count < 0) return '0';
  const whole = Math.floor(count);
  return whole > COUNT_CAP ? `${COUNT_CAP}+` : String(whole);
}
