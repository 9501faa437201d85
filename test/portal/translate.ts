/** Looks a dotted key up in a catalogue; answers the key itself when missing (as i18next does). */
export function translate(catalogue: unknown, key: string): string {
  let node: unknown = catalogue;
  for (const part of key.split('.')) {
    if (typeof node !== 'object' || node === null) return key;
    node = (node as Record<string, unknown>)[part];
  }
  return typeof node === 'string' ? node : key;
}

/** Every leaf key of a catalogue, dotted. */
export function leafKeys(catalogue: unknown, prefix = ''): string[] {
  if (typeof catalogue !== 'object' || catalogue === null) return [prefix];
  return Object.entries(catalogue).flatMap(([key, value]) => leafKeys(value, prefix ? `${prefix}.${key}` : key));
}
