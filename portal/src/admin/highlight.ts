/**
 * The highlighted row of a search result moved by ArrowDown (+1) and ArrowUp (-1). No highlight
 * yet: down starts at the first row, up at the last; moving past an end wraps around. An empty
 * list has no highlight.
 */
export function moveHighlight(current: number | null, delta: 1 | -1, length: number): number | null {
  if (length <= 0) return null;
  if (current === null || current < 0 || current >= length) return delta === 1 ? 0 : length - 1;
  return (current + delta + length) % length;
}
