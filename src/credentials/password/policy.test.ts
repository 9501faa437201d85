import { describe, expect, it } from 'vitest';
import { AppError } from '../../http/app-error.ts';
import { assertPasswordPolicy, checkPasswordPolicy, type PasswordRule } from './policy.ts';

const cases: [string, string, PasswordRule | 'ok'][] = [
  ['eight characters', 'Abcdef1!', 'min_length'],
  ['nine characters with every class', 'Abcdefg1!', 'ok'],
  ['no uppercase', 'abcdefgh1!', 'uppercase'],
  ['no digit', 'Abcdefghi!', 'digit'],
  ['no special', 'Abcdefgh12', 'special'],
  ['space counts as special', 'Correct horse 9', 'ok'],
  ['Swedish uppercase letter', 'ÅÄÖåäö12#', 'ok'],
  ['common password, any case', 'PASSWORD123!', 'common'],
  ['common password with a capital', 'Welcome1!', 'common'],
  ['common Swedish password', 'Lösenord123!', 'common'],
  ['64 characters', `Aa1!${'x'.repeat(60)}`, 'ok'],
  ['256 characters', `Aa1!${'x'.repeat(252)}`, 'ok'],
  ['257 characters', `Aa1!${'x'.repeat(253)}`, 'max_length'],
  ['length in code points, not UTF-16 units', 'A1!😀😀😀😀😀', 'min_length'],
  ['full-width characters normalise (NFKC) before checking', 'Ａｂｃｄｅｆｇ１！', 'ok'],
];

describe('checkPasswordPolicy', () => {
  it.each(cases)('%s', (_name, password, expected) => {
    const result = checkPasswordPolicy(password);
    expect(result.ok ? 'ok' : result.rule).toBe(expected);
  });

  it('returns the NFKC form that will be hashed', () => {
    const decomposed = 'Ma\u0308rta-1234';
    const result = checkPasswordPolicy(decomposed);
    expect(result).toEqual({ ok: true, normalized: 'Märta-1234' });
  });

  it('never truncates: long passwords differing at the end stay different', () => {
    const a = checkPasswordPolicy(`Aa1!${'x'.repeat(200)}a`);
    const b = checkPasswordPolicy(`Aa1!${'x'.repeat(200)}b`);
    expect(a.ok && b.ok && a.normalized !== b.normalized).toBe(true);
  });
});

describe('assertPasswordPolicy', () => {
  it('throws weak_password (422) naming the rule', () => {
    try {
      assertPasswordPolicy('short');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).status).toBe(422);
      expect((err as AppError).toBody()).toEqual({
        detail: [{ type: 'weak_password', msg: 'Password must be at least 9 characters' }],
      });
    }
  });
});
