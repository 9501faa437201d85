import { randomBytes } from 'node:crypto';
import { hash as argon2Hash, verify as argon2Verify, type Options } from '@node-rs/argon2';
import bcrypt from 'bcrypt';

/**
 * OWASP's argon2id parameters: m=19456 KiB, t=2, p=1. The library's default algorithm is
 * argon2id (its `Algorithm` is a const enum that cannot be imported under erasable syntax).
 */
const argon2Options: Options = { memoryCost: 19456, timeCost: 2, parallelism: 1 };

export type HashScheme = 'argon2id' | 'bcrypt' | 'unknown';

export function hashScheme(hash: string): HashScheme {
  if (hash.startsWith('$argon2id$')) return 'argon2id';
  if (/^\$2[aby]\$\d{2}\$/.test(hash)) return 'bcrypt';
  return 'unknown';
}

/** Hashes an already NFKC-normalised password for storage. */
export function hashPassword(normalized: string): Promise<string> {
  return argon2Hash(normalized, argon2Options);
}

export interface VerifyOutcome {
  ok: boolean;
  /** A new argon2id hash to store when the stored one is a legacy scheme. */
  upgradedHash?: string;
}

/**
 * Checks a password against a stored hash. argon2id hashes were made from the NFKC form.
 * Imported bcrypt hashes were made by the old system from the raw input, so the raw input is
 * tried first; on success the hash is replaced with argon2id of the normalised form.
 */
export async function verifyPassword(stored: string, password: string): Promise<VerifyOutcome> {
  const normalized = password.normalize('NFKC');
  switch (hashScheme(stored)) {
    case 'argon2id':
      return { ok: await argon2Verify(stored, normalized).catch(() => false) };
    case 'bcrypt': {
      const ok =
        (await bcrypt.compare(password, stored).catch(() => false)) ||
        (normalized !== password && (await bcrypt.compare(normalized, stored).catch(() => false)));
      return ok ? { ok, upgradedHash: await hashPassword(normalized) } : { ok };
    }
    default:
      await verifyAgainstDummy(password);
      return { ok: false };
  }
}

let dummyHash: Promise<string> | undefined;

/**
 * For an unknown account, or one without a password, the same argon2id work is done against a
 * fixed hash of a random secret, so the answer time does not tell whether the account exists.
 * The result is always false.
 */
export async function verifyAgainstDummy(password: string): Promise<false> {
  dummyHash ??= hashPassword(randomBytes(32).toString('base64url'));
  await argon2Verify(await dummyHash, password.normalize('NFKC')).catch(() => false);
  return false;
}
