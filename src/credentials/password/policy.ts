import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../config/project-root.ts';
import { AppError } from '../../http/app-error.ts';

/** Minimum length of a new password (spec: create-password needs 9). */
export const minPasswordLength = 9;
/** NIST 800-63B asks to accept at least 64; we accept 256 and never truncate. */
export const maxPasswordLength = 256;
/** Longest password a sign-in request may carry before hashing; longer is refused at the edge. */
export const maxPasswordInputLength = 1024;

const commonPasswords: ReadonlySet<string> = new Set(
  readFileSync(join(projectRoot, 'src/credentials/password/common-passwords.txt'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => line.normalize('NFKC').toLowerCase()),
);

export type PasswordRule = 'min_length' | 'max_length' | 'uppercase' | 'digit' | 'special' | 'common';

export type PolicyResult =
  | { ok: true; normalized: string }
  | { ok: false; rule: PasswordRule; reason: string };

/**
 * Passwords are NFKC-normalised before checking and hashing, so the same password typed on
 * different keyboards (composed vs decomposed å, full-width digits) hashes the same.
 */
export function normalizePassword(password: string): string {
  return password.normalize('NFKC');
}

/**
 * The rules for a new password: length counted in code points, an uppercase letter, a digit,
 * a special character (anything neither letter nor digit) and not one of the most common
 * passwords. The reason names the failed rule; the portal shows it as is.
 */
export function checkPasswordPolicy(password: string): PolicyResult {
  const normalized = normalizePassword(password);
  const length = [...normalized].length;
  if (length < minPasswordLength) return fail('min_length', `Password must be at least ${minPasswordLength} characters`);
  if (length > maxPasswordLength) return fail('max_length', `Password must be at most ${maxPasswordLength} characters`);
  if (!/\p{Lu}/u.test(normalized)) return fail('uppercase', 'Password must contain an uppercase letter');
  if (!/\p{Nd}/u.test(normalized)) return fail('digit', 'Password must contain a digit');
  if (!/[^\p{L}\p{N}]/u.test(normalized)) return fail('special', 'Password must contain a special character');
  if (commonPasswords.has(normalized.toLowerCase())) return fail('common', 'Password is too common, choose another one');
  return { ok: true, normalized };
}

/** The policy as an error: 422 `weak_password` naming the failed rule. Returns the normalised password. */
export function assertPasswordPolicy(password: string): string {
  const result = checkPasswordPolicy(password);
  if (!result.ok) throw new AppError('weak_password', 422, result.reason);
  return result.normalized;
}

function fail(rule: PasswordRule, reason: string): PolicyResult {
  return { ok: false, rule, reason };
}
