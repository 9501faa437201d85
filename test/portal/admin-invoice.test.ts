import { describe, expect, it } from 'vitest';
import { formatSek, invoiceFee, invoiceTotals, rowFee } from '../../portal/src/admin/invoice/invoice-fee.ts';
import { ttlParts } from '../../portal/src/admin/tokens/token-ttl.ts';

describe('invoice fee: 2850 plus 275 per user beyond the first (spec section 9)', () => {
  it.each([
    [0, 2850],
    [1, 2850],
    [2, 3125],
    [10, 5325],
    [101, 30350],
  ])('%s users → %s SEK', (users, fee) => {
    expect(invoiceFee(users)).toBe(fee);
  });

  it("uses the server's fee, and the formula only when none came", () => {
    expect(rowFee({ fee: 1000, user_count: 5 })).toBe(1000);
    expect(rowFee({ fee: undefined as unknown as number, user_count: 2 })).toBe(3125);
  });

  it('totals users and fees', () => {
    expect(invoiceTotals([])).toEqual({ users: 0, fee: 0 });
    expect(invoiceTotals([{ fee: 2850, user_count: 1 }, { fee: 3125, user_count: 2 }])).toEqual({ users: 3, fee: 5975 });
  });
});

describe('SEK with thousands separators', () => {
  it.each([
    [2850, 'en', '2,850\u00a0SEK'],
    [2850, 'sv', '2\u00a0850\u00a0kr'],
    [0, 'en', '0\u00a0SEK'],
    [999, 'sv', '999\u00a0kr'],
    [1_234_567, 'en', '1,234,567\u00a0SEK'],
    [1_234_567, 'sv', '1\u00a0234\u00a0567\u00a0kr'],
    [2850.4, 'en', '2,850\u00a0SEK'],
    [-3125, 'sv', '\u22123\u00a0125\u00a0kr'],
  ] as const)('%s in %s → %s', (amount, language, text) => {
    expect(formatSek(amount, language)).toBe(text);
  });
});

describe('token TTL in words', () => {
  it.each([
    [-1, null],
    [-2, null],
    [0, [{ unit: 'seconds', count: 0 }]],
    [45, [{ unit: 'seconds', count: 45 }]],
    [60, [{ unit: 'minutes', count: 1 }]],
    [
      125,
      [
        { unit: 'minutes', count: 2 },
        { unit: 'seconds', count: 5 },
      ],
    ],
    [
      3_900,
      [
        { unit: 'hours', count: 1 },
        { unit: 'minutes', count: 5 },
      ],
    ],
    [3_605, [{ unit: 'hours', count: 1 }]],
    [
      1_209_600 + 7_200 + 30,
      [
        { unit: 'days', count: 14 },
        { unit: 'hours', count: 2 },
      ],
    ],
    [86_400 + 300, [{ unit: 'days', count: 1 }]],
  ])('%s s → %o', (seconds, parts) => {
    expect(ttlParts(seconds)).toEqual(parts);
  });
});
