/**
 * An ILIKE pattern matching values that contain `term`. `%`, `_` and `\` match themselves, so a
 * search for "a_b" is not a pattern. PostgreSQL's default LIKE escape character is `\`.
 */
export function likeContains(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
