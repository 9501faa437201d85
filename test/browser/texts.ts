import en from '../../portal/src/i18n/en.json' with { type: 'json' };
import sv from '../../portal/src/i18n/sv.json' with { type: 'json' };

export type Language = 'en' | 'sv';

const catalogues: Record<Language, unknown> = { en, sv };

/**
 * The portal's own text for `key` in `language`, with {{name}} placeholders filled. Journeys look
 * texts up here rather than copying them, so a copy change moves the test with it. A missing key
 * throws: a test must never pass by comparing against `undefined`.
 */
export function text(language: Language, key: string, values: Record<string, string | number> = {}): string {
  const found = key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], catalogues[language]);
  if (typeof found !== 'string' || found === '') throw new Error(`no ${language} text for ${key}`);
  return found.replace(/\{\{\s*(\w+)\s*\}\}/g, (_m, name: string) => {
    if (!(name in values)) throw new Error(`${language} ${key} needs a value for {{${name}}}`);
    return String(values[name]);
  });
}

export const t = {
  en: (key: string, values?: Record<string, string | number>) => text('en', key, values),
  sv: (key: string, values?: Record<string, string | number>) => text('sv', key, values),
};
