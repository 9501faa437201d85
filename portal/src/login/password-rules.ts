/**
 * Password rules shown while a person creates a password (login step and set-password page).
 * The server enforces the same policy and stays the authority: when it refuses, its error shows.
 * The rules are the server's own (src/credentials/password/policy.ts), checked the same way on the
 * NFKC-normalised password, so the form never refuses a password the server would take (`§`, `€`,
 * a space) nor ticks off one it would refuse; only "too common" and the upper length limit are
 * left to the server.
 */

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

/** Each rule on the normalised password, as policy.ts checks it. */
const checks: Record<PasswordRule, (normalized: string) => boolean> = {
  length: (normalized) => [...normalized].length >= MIN_CREATE_LENGTH,
  uppercase: (normalized) => /\p{Lu}/u.test(normalized),
  digit: (normalized) => /\p{Nd}/u.test(normalized),
  // A special character is anything that is neither a letter nor a digit; the hint names examples.
  special: (normalized) => /[^\p{L}\p{N}]/u.test(normalized),
};

export interface RuleResult {
  rule: PasswordRule;
  met: boolean;
}

export function checkPasswordRules(password: string): RuleResult[] {
  const normalized = password.normalize('NFKC');
  return PASSWORD_RULES.map((rule) => ({ rule, met: checks[rule](normalized) }));
}

export function meetsCreateRules(password: string): boolean {
  const normalized = password.normalize('NFKC');
  return PASSWORD_RULES.every((rule) => checks[rule](normalized));
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
