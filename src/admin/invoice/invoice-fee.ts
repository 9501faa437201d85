/** Spec section 9: "Invoice fee: 2850 plus 275 per user beyond the first". */
export const invoiceBaseFee = 2850;
export const invoiceFeePerExtraUser = 275;

export function invoiceFee(userCount: number): number {
  return invoiceBaseFee + invoiceFeePerExtraUser * Math.max(0, userCount - 1);
}
