/**
 * Password rules shown while a person creates a password (login step and set-password page).
 * The server enforces the same policy and stays the authority: when it refuses, its error shows.
 */

/**
 * The special characters that satisfy the "special character" rule — exactly these 31:
 * ! @ # $ % ^ & * ( ) _ + - = [ ] { } ; ' : " \ | , . < > / ? ~
 * (no space, no backtick, no letters or digits from other scripts).
 */
export const SPECIAL_CHARACTERS = `!@#$%^&*()_+-=[]{};':"\\|,.<>/?~`;

/** Minimum length when creating a password. */
export const MIN_CREATE_LENGTH = 9;

/** Minimum length checked first on the set-password page (spec section 5). */
export const MIN_SET_PASSWORD_LENGTH = 8;

export type PasswordRule = 'length' | 'uppercase' | 'digit' | 'special';

export const PASSWORD_RULES: readonly PasswordRule[] = ['length', 'uppercase', 'digit', 'special'];

/** i18n key of each rule's text. */
export const PASSWORD_RULE_KEYS: Record<PasswordRule, string> = {
  length: 'password.rules.length',
  uppercase: 'password.rules.uppercase',
  digit: 'password.rules.digit',
  special: 'password.rules.special',
};

const checks: Record<PasswordRule, (password: string) => boolean> = {
  length: (password) => [...password].length >= MIN_CREATE_LENGTH,
  uppercase: (password) => /\p{Lu}/u.test(password),
  digit: (password) => /[0-9]/.test(password),
  special: (password) => [...password].some((char) => SPECIAL_CHARACTERS.includes(char)),
};

export interface RuleResult {
  rule: PasswordRule;
  met: boolean;
}

export function checkPasswordRules(password: string): RuleResult[] {
  return PASSWORD_RULES.map((rule) => ({ rule, met: checks[rule](password) }));
}

export function meetsCreateRules(password: string): boolean {
  return PASSWORD_RULES.every((rule) => checks[rule](password));
}

/** Create-password form: every rule met and the repeat matches. Submit stays disabled otherwise. */
export function isCreatePasswordValid(password: string, repeat: string): boolean {
  return meetsCreateRules(password) && password === repeat;
}

export type SetPasswordProblem = 'empty' | 'mismatch' | 'too_short' | 'rules';

/** i18n key per problem; `rules` is shown by the rule list itself. */
export const SET_PASSWORD_PROBLEM_KEYS: Record<SetPasswordProblem, string> = {
  empty: 'password.empty',
  mismatch: 'password.mismatch',
  too_short: 'password.too_short',
  rules: 'password.rules_unmet',
};

/**
 * Set-password page checks in the spec's order — empty, mismatch, under 8 — then the create rules,
 * which the server enforces as well. Null when the passwords may be submitted.
 */
export function setPasswordProblem(password: string, repeat: string): SetPasswordProblem | null {
  if (password === '') return 'empty';
  if (password !== repeat) return 'mismatch';
  if ([...password].length < MIN_SET_PASSWORD_LENGTH) return 'too_short';
  if (!meetsCreateRules(password)) return 'rules';
  return null;
}

/**
 * The set-password message to show while typing: nothing until the person has left the first
 * field (or typed the repeat), then empty / mismatch (once a repeat is typed) / under 8. Unmet
 * create rules are shown by the rule list, not here.
 */
export function visibleSetPasswordProblem(password: string, repeat: string, touched: boolean): SetPasswordProblem | null {
  if (!touched) return null;
  if (password === '') return 'empty';
  if (repeat !== '' && password !== repeat) return 'mismatch';
  if ([...password].length < MIN_SET_PASSWORD_LENGTH) return 'too_short';
  return null;
}
