import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import en from '../../portal/src/i18n/en.json' with { type: 'json' };
import sv from '../../portal/src/i18n/sv.json' with { type: 'json' };
import { KNOWN_SERVER_MESSAGES, LOGIN_ERROR_TYPES } from '../../portal/src/login/error-messages.ts';
import { PASSWORD_RULE_KEYS, SET_PASSWORD_PROBLEM_KEYS } from '../../portal/src/login/password-rules.ts';
import { leafKeys, translate } from './translate.ts';

const portalSrc = resolve(import.meta.dirname, '../../portal/src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

/** A key exists as is, or as the plural forms i18next looks up for it. */
const exists = (catalogue: unknown, key: string) =>
  translate(catalogue, key) !== key || translate(catalogue, `${key}_other`) !== `${key}_other`;

/** The spec's section 8 messages, in English. */
const SECTION_8 = [
  'Invalid credentials (passwords are case-sensitive)',
  'Login session is expired',
  'Invalid login session state',
  'Account temporarily locked after too many failed attempts',
  'Invalid code. Please try again.',
  'Failed to authenticate',
  'Session expired, please log in again',
  'One-time password expired or invalid',
  'Too many invalid retries, use the link again',
  'Activation link already used or expired',
  'Password reset failed',
  'Invalid or expired token',
  'Failed to load accounts',
  'Failed to load tenants',
  'Failed to load password reset links',
  'Failed to delete credential',
  'Failed to send password reset email',
  'Failed to update language preference',
  'Failed to remove authentication method',
  'Error creating tenant',
  'Network error. Please try again later.',
  'An unexpected error occurred',
  'Unknown error.',
  'New password set',
  'Credential deleted successfully',
  'Password reset email sent successfully',
  'Reset link copied',
  'Notification sent',
  'Passwords do not match',
  'Password cannot be empty',
  'Password must be at least 8 characters',
  'Please enter the TOTP code',
];

/** Values that are the same in both languages on purpose (names). */
const SAME_IN_BOTH = new Set(['app.name', 'language.sv', 'language.en', 'provider.google', 'provider.microsoft']);

describe('translation catalogues', () => {
  it('English and Swedish have the same keys', () => {
    expect(leafKeys(sv).sort()).toEqual(leafKeys(en).sort());
  });

  it.each(SECTION_8)('has the spec message "%s"', (message) => {
    const key = leafKeys(en).find((k) => translate(en, k) === message);
    expect(key, message).toBeDefined();
    expect(translate(sv, key ?? '')).not.toBe(key);
  });

  it('Swedish is translated, not copied', () => {
    const copied = leafKeys(en).filter((key) => !SAME_IN_BOTH.has(key) && translate(sv, key) === translate(en, key));
    expect(copied).toEqual([]);
  });

  it('keeps the same interpolation variables in both languages', () => {
    const vars = (text: string) => [...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();
    for (const key of leafKeys(en)) expect(vars(translate(sv, key)), key).toEqual(vars(translate(en, key)));
  });

  it('every key the code names exists in both languages', () => {
    const named = new Set<string>([
      ...Object.values(LOGIN_ERROR_TYPES).map((m) => m.key),
      ...Object.values(KNOWN_SERVER_MESSAGES),
      ...Object.values(PASSWORD_RULE_KEYS),
      ...Object.values(SET_PASSWORD_PROBLEM_KEYS),
      'login.otp.resent',
      'errors.too_many_requests',
      'errors.failed_to_send_reset_email',
      ...['google', 'microsoft'].flatMap((p) => [`login.credentials.${p}`, `login.create_credential.link_${p}`, `provider.${p}`]),
      ...['sv', 'en'].map((l) => `language.${l}`),
      ...['tenants', 'accounts', 'invoice', 'notifications'].map((n) => `admin.${n}`),
    ]);
    for (const file of sourceFiles(portalSrc)) {
      for (const match of readFileSync(file, 'utf8').matchAll(/\bt\(\s*'([^']+)'/g)) named.add(match[1] ?? '');
    }
    expect(named.size).toBeGreaterThan(80);
    const missing = [...named].filter((key) => !exists(en, key) || !exists(sv, key));
    expect(missing).toEqual([]);
  });
});
