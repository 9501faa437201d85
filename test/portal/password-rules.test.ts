import { describe, expect, it } from 'vitest';
import {
  checkPasswordRules,
  isCreatePasswordValid,
  setPasswordProblem,
  SPECIAL_CHARACTERS,
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
    ['Abcdefgh 1', ['special']],
    ['Abcdefgh`1', ['special']],
    ['Åbcdefgh1!', []],
    ['ÅÄÖåäöxy1#', []],
  ])('%j leaves %j unmet', (password, expected) => {
    expect(unmet(password)).toEqual(expected);
  });

  it('the special set is exactly the documented 31 characters', () => {
    expect([...SPECIAL_CHARACTERS].sort().join('')).toBe([...`!@#$%^&*()_+-=[]{};':"\\|,.<>/?~`].sort().join(''));
    expect(SPECIAL_CHARACTERS).toHaveLength(31);
    for (const char of SPECIAL_CHARACTERS) expect(unmet(`Abcdefgh1${char}`), char).toEqual([]);
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
