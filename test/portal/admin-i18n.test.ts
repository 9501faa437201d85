import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import en from '../../portal/src/i18n/en.json' with { type: 'json' };
import sv from '../../portal/src/i18n/sv.json' with { type: 'json' };
import { CREDENTIAL_KEYS, KIND_KEYS } from '../../portal/src/admin/accounts/account-view.ts';
import { REFUSAL_KEYS, refusalKey } from '../../portal/src/admin/accounts/email-change-refusals.ts';
import { LAST_LOGIN_KEYS } from '../../portal/src/admin/accounts/last-login.ts';
import { SMS_STATUS_KEYS } from '../../portal/src/admin/tenants/sms-settings.ts';
import { TTL_KEYS } from '../../portal/src/admin/tokens/token-ttl.ts';
import { ApiError } from '../../portal/src/api/client.ts';
import { translate } from './translate.ts';

const adminSrc = resolve(import.meta.dirname, '../../portal/src/admin');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

const found = (catalogue: unknown, key: string) => translate(catalogue, key) !== key;

/** Keys looked up with a count need both plural forms in both languages (or one plain key). */
const pluralOk = (catalogue: unknown, key: string) => found(catalogue, key) || (found(catalogue, `${key}_one`) && found(catalogue, `${key}_other`));

describe('console texts', () => {
  const mapped = [
    ...Object.values(LAST_LOGIN_KEYS),
    ...Object.values(TTL_KEYS),
    ...Object.values(SMS_STATUS_KEYS),
    ...Object.values(CREDENTIAL_KEYS),
    ...Object.values(KIND_KEYS),
    ...Object.values(REFUSAL_KEYS),
  ];

  it.each(mapped)('%s exists in English and Swedish', (key) => {
    expect(pluralOk(en, key), `en ${key}`).toBe(true);
    expect(pluralOk(sv, key), `sv ${key}`).toBe(true);
  });

  it.each([
    ['account/email-taken', 'Another account already has this email address.', 'Ett annat konto har redan den här e-postadressen.'],
    [
      'account/operator-account',
      'This is an operator account. Remove the operator role first, then change its email address.',
      'Det här är ett operatörskonto. Ta bort operatörsrollen först och ändra sedan e-postadressen.',
    ],
  ])('the Change email dialog words the refusal %s itself', (type, english, swedish) => {
    const key = refusalKey(new ApiError(409, 'Conflict', [{ type, msg: 'server text' }]));
    expect([translate(en, key ?? ''), translate(sv, key ?? '')]).toEqual([english, swedish]);
  });

  it('leaves any other failure of the Change email dialog to the generic message', () => {
    expect(refusalKey(new ApiError(503, 'Service Unavailable', [{ type: 'service_unavailable', msg: 'x' }]))).toBeUndefined();
    expect(refusalKey(new Error('offline'))).toBeUndefined();
  });

  it('every key the console names with a count has its plural forms in both languages', () => {
    const counted = new Set<string>();
    for (const file of sourceFiles(adminSrc)) {
      for (const match of readFileSync(file, 'utf8').matchAll(/\bt\(\s*'([^']+)',\s*\{[^}]*\bcount\b/g)) counted.add(match[1] ?? '');
    }
    expect(counted.size).toBeGreaterThan(3);
    const missing = [...counted].filter((key) => !pluralOk(en, key) || !pluralOk(sv, key));
    expect(missing).toEqual([]);
  });

  it('the console uses the spec wording for badges and last login', () => {
    expect(translate(en, KIND_KEYS.user)).toBe('User');
    expect(translate(en, KIND_KEYS.stakeholder)).toBe('Stakeholder');
    expect(translate(en, KIND_KEYS.unknown)).toBe('Unknown');
    expect(translate(en, 'admin.account.reset_password')).toBe('Reset Password');
    expect(translate(en, 'admin.last_login.today')).toBe('Today');
    expect(translate(en, 'admin.last_login.weeks_one')).toBe('{{count}} week ago');
  });
});
