import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkPasswordPolicy } from '../../src/credentials/password/policy.ts';
import {
  checkPasswordRules,
  isCreatePasswordValid,
  meetsCreateRules,
  setPasswordProblem,
  visibleSetPasswordProblem,
} from '../../portal/src/login/password-rules.ts';

const unmet = (password: string) => checkPasswordRules(password).filter((r) => !r.met).map((r) => r.rule);

describe('create-password rules', () => {
  it.each([
    ['', ['length', 'uppercase', 'digit', 'special']],
    ['Abcdefg1!', []],
    ['Abcdef1!', ['length']],
    ['abcdefgh1!', ['uppercase']],
    ['Abcdefghi!', ['digit']],
    ['Abcdefghi1', ['special']],
    ['Åbcdefgh1!', []],
    ['ÅÄÖåäöxy1#', []],
    // Anything neither letter nor digit is special, as on the server: § is on the Swedish keyboard.
    ['Sommarstuga§2024', []],
    ['Abcdefgh€1', []],
    ['Abcdefgh 1', []],
    ['Abcdefgh`1', []],
    ['Abcdefgh²1', ['special']],
    ['Abcdefghé1', ['special']],
    // Decomposed é (e + U+0301) is one letter once normalised, as the server counts it.
    ['Abcdefghe\u03011', ['special']],
    ['Abcdefgh!٣', []],
  ])('%j leaves %j unmet', (password, expected) => {
    expect(unmet(password)).toEqual(expected);
  });

  it.each(['!', '@', '#', '$', '%', '^', '&', '*', '(', ')', '_', '+', '-', '=', '[', ']', '{', '}', ';', "'", ':', '"', '\\', '|', ',', '.', '<', '>', '/', '?', '~'])(
    '%s is a special character',
    (char) => {
      expect(unmet(`Abcdefgh1${char}`)).toEqual([]);
    },
  );

  it('the form accepts exactly what the server accepts, short of "too common" and the upper length limit', () => {
    const serverAccepts = (password: string) => {
      const result = checkPasswordPolicy(password);
      return result.ok || result.rule === 'common' || result.rule === 'max_length';
    };
    const sample = ['Sommarstuga§2024', 'abcdefgh1!', 'ABCDEFGH1!', 'Abcdefgh1', 'Abcdefgh!', 'Ab1!', 'Abcdefgh e\u0301'];
    for (const password of sample) expect(meetsCreateRules(password), password).toBe(serverAccepts(password));
    const character = fc.oneof(
      fc.constantFrom('A', 'Å', 'a', 'ß', '1', '٣', '²', '½', '§', '€', ' ', '!', '`', '\u0301', 'ﬀ', 'Ａ', '１', '\u00a0'),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    );
    fc.assert(
      fc.property(fc.array(character, { maxLength: 14 }).map((chars) => chars.join('')), (password) => meetsCreateRules(password) === serverAccepts(password)),
      { numRuns: 1000 },
    );
  });

  it.each([
    ['Abcdefg1!', 'Abcdefg1!', true],
    ['Abcdefg1!', 'Abcdefg1?', false],
    ['Abcdefg1!', '', false],
    ['abcdefg1!', 'abcdefg1!', false],
  ])('valid(%j, %j) = %s', (password, repeat, valid) => {
    expect(isCreatePasswordValid(password, repeat)).toBe(valid);
  });
});

describe('set-password page checks', () => {
  it.each([
    ['', '', 'empty'],
    ['', 'x', 'empty'],
    ['Abcdefg1!', 'Abcdefg1', 'mismatch'],
    ['Ab1!', 'Ab1!', 'too_short'],
    ['Abcdef1!', 'Abcdef1!', 'rules'],
    ['abcdefgh1!', 'abcdefgh1!', 'rules'],
    ['Abcdefg1!', 'Abcdefg1!', null],
  ])('(%j, %j) → %s', (password, repeat, problem) => {
    expect(setPasswordProblem(password, repeat)).toBe(problem);
  });

  it.each([
    ['Ab', '', false, null],
    ['', '', true, 'empty'],
    ['Abcdefg1!', '', true, null],
    ['Abcdefg1!', 'Abc', true, 'mismatch'],
    ['Abc', '', true, 'too_short'],
    ['Abcdef1!', 'Abcdef1!', true, null],
  ])('shown while typing (%j, %j, touched %s) → %s', (password, repeat, touched, problem) => {
    expect(visibleSetPasswordProblem(password, repeat, touched)).toBe(problem);
  });
});
