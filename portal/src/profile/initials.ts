/** Up to two letters for the avatar: first and last name's initials, else the email's first letter. */
export function initialsOf(name: string | null | undefined, email: string): string {
  const words = (name ?? '').trim().split(/\s+/).filter(Boolean);
  const first = words[0];
  const last = words.length > 1 ? words[words.length - 1] : undefined;
  const letters = [first, last].map((word) => (word ? [...word][0] : '')).join('');
  return (letters || [...email.trim()][0] || '?').toUpperCase();
}
