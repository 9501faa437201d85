/** The server's name rules (src/profile/profile.schemas.ts), checked before sending; the server stays the authority. */
export type NameProblem = 'required' | 'too_long' | 'invalid';

export const NAME_PROBLEM_KEYS: Record<NameProblem, string> = {
  required: 'profile.name_required',
  too_long: 'profile.name_too_long',
  invalid: 'profile.name_invalid',
};

export const MAX_NAME_LENGTH = 100;

export function nameProblem(value: string): NameProblem | null {
  const trimmed = value.normalize('NFC').trim();
  if (trimmed === '') return 'required';
  if ([...trimmed].length > MAX_NAME_LENGTH) return 'too_long';
  if (/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(trimmed)) return 'invalid';
  return null;
}
