/** The setup key as people read and type it: no spaces, upper case, in blocks of four. */
export function groupSecret(secret: string, size = 4): string {
  const compact = compactSecret(secret);
  return compact.match(new RegExp(`.{1,${size}}`, 'g'))?.join(' ') ?? '';
}

/** The key without the spaces the page shows it with (what the copy button copies). */
export function compactSecret(secret: string): string {
  return secret.replace(/\s+/g, '').toUpperCase();
}

export const TOTP_CODE_LENGTH = 6;

/** Keeps what an authenticator code can hold: digits, at most six (pasted "123 456" works too). */
export function codeInput(value: string): string {
  return value.replace(/\D/g, '').slice(0, TOTP_CODE_LENGTH);
}

/** Only the QR image of the current pending secret: a new query per setup defeats any cache. */
export function qrCodeSrc(version: number): string {
  return `/auth/qrcode?v=${version}`;
}
