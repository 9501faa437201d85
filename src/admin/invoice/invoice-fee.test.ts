import { describe, expect, it } from 'vitest';
import { invoiceFee } from './invoice-fee.ts';

describe('invoiceFee', () => {
  it.each([
    [0, 2850],
    [1, 2850],
    [2, 3125],
    [10, 2850 + 9 * 275],
    [250, 2850 + 249 * 275],
  ])('%i users → %i', (users, fee) => {
    expect(invoiceFee(users)).toBe(fee);
  });
});
