/** amr values that count as a second factor: the acr of such a sign-in is LoA 2. */
const multiFactor = new Set(['mfa', 'hwk']);

/** The acr of a sign-in with these amr values (LoA 2 with a second factor or a passkey). */
export function acrOf(amr: readonly string[]): string {
  return amr.some((m) => multiFactor.has(m)) ? 'urn:nyckel:loa:2' : 'urn:nyckel:loa:1';
}
