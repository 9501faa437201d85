import type { InvoiceRow } from '../../api/admin.ts';

/** Spec section 9: 2850 SEK plus 275 SEK per user beyond the first. */
export const BASE_FEE = 2850;
export const FEE_PER_EXTRA_USER = 275;

export function invoiceFee(userCount: number): number {
  return BASE_FEE + FEE_PER_EXTRA_USER * Math.max(0, Math.floor(userCount) - 1);
}

/** The row's fee as the server computed it; the spec's formula when it sent none. */
export function rowFee(row: Pick<InvoiceRow, 'fee' | 'user_count'>): number {
  return typeof row.fee === 'number' && Number.isFinite(row.fee) ? row.fee : invoiceFee(row.user_count);
}

export interface InvoiceTotals {
  users: number;
  fee: number;
}

export function invoiceTotals(rows: readonly Pick<InvoiceRow, 'fee' | 'user_count'>[]): InvoiceTotals {
  return rows.reduce((sum, row) => ({ users: sum.users + row.user_count, fee: sum.fee + rowFee(row) }), { users: 0, fee: 0 });
}

/**
 * Whole kronor with thousands separators: "12,345 SEK" in English, "12 345 kr" in Swedish (a
 * no-break space, so the amount never wraps). Written out rather than Intl so the output does not
 * depend on the browser's locale data. Öre are rounded away: fees are whole kronor.
 */
export function formatSek(amount: number, language: 'sv' | 'en'): string {
  const rounded = Math.round(amount);
  const digits = String(Math.abs(rounded));
  const separator = language === 'sv' ? '\u00a0' : ',';
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, separator);
  const signed = rounded < 0 ? `\u2212${grouped}` : grouped;
  return language === 'sv' ? `${signed}\u00a0kr` : `${signed}\u00a0SEK`;
}
