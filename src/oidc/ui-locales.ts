/**
 * The first language of an OIDC `ui_locales` (space-separated BCP 47 tags, most preferred first)
 * that Nyckel speaks, by primary subtag: `fi sv-SE en` is Swedish. Undefined when none is.
 */
export function uiLanguage(uiLocales: unknown): 'sv' | 'en' | undefined {
  if (typeof uiLocales !== 'string') return undefined;
  for (const tag of uiLocales.split(' ').slice(0, 20)) {
    const primary = tag.toLowerCase().split('-')[0];
    if (primary === 'sv' || primary === 'en') return primary;
  }
  return undefined;
}

/**
 * The language of a page Nyckel shows itself: the request's ui_locales first, then its
 * Accept-Language (`accepted`: the request's pick of `en` and `sv`), else English.
 */
export function pageLanguage(uiLocales: unknown, accepted: string | false): 'sv' | 'en' {
  return uiLanguage(uiLocales) ?? (accepted === 'sv' ? 'sv' : 'en');
}
