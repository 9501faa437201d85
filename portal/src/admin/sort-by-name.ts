const collator = new Intl.Collator(undefined, { sensitivity: 'base', numeric: true });

/** A copy sorted by name (case- and accent-insensitive, numbers in numeric order), then by `tie`. */
export function sortByName<T extends { name: string }>(items: readonly T[], tie: (item: T) => string = () => ''): T[] {
  return [...items].sort((a, b) => collator.compare(a.name, b.name) || collator.compare(tie(a), tie(b)));
}
