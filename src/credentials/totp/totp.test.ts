import { describe, expect, it } from 'vitest';
import { matchTotp, newTotpSecret, totpCodeAt, totpUri } from './totp.ts';

/** RFC 6238 appendix B's SHA-1 seed "12345678901234567890", in Base32. */
const rfcSecret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const at = (seconds: number) => new Date(seconds * 1000);

describe('TOTP', () => {
  it.each([
    [59, '287082'],
    [1111111109, '081804'],
    [1234567890, '005924'],
    [2000000000, '279037'],
  ])('matches RFC 6238 test vectors (last 6 digits) at %i', async (seconds, code) => {
    expect(await totpCodeAt(rfcSecret, at(seconds))).toBe(code);
  });

  it.each([
    [-2, false],
    [-1, true],
    [0, true],
    [1, true],
    [2, false],
  ])('a code %i steps away is accepted: %s', async (steps, accepted) => {
    const now = 1_800_000_015;
    const code = await totpCodeAt(rfcSecret, at(now + steps * 30));
    const step = await matchTotp(rfcSecret, code, at(now));
    expect(step).toBe(accepted ? Math.floor(now / 30) + steps : null);
  });

  it('refuses malformed codes and secrets without throwing', async () => {
    expect(await matchTotp(rfcSecret, '12345', at(59))).toBeNull();
    expect(await matchTotp(rfcSecret, '28708a', at(59))).toBeNull();
    expect(await matchTotp('not base32!', '287082', at(59))).toBeNull();
  });

  it('makes 160-bit Base32 secrets and Google-compatible otpauth URIs', () => {
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(newTotpSecret()).not.toBe(secret);
    expect(totpUri('ann+x@example.com', secret)).toBe(`otpauth://totp/Nyckel:ann%2Bx%40example.com?secret=${secret}&issuer=Nyckel`);
  });
});
