import i18n from 'i18next';
import LanguageDetector from 'i18next-browser-languagedetector';
import { initReactI18next } from 'react-i18next';
import en from './en.json' with { type: 'json' };
import sv from './sv.json' with { type: 'json' };

export const SUPPORTED_LANGUAGES = ['sv', 'en'] as const;
export type Language = (typeof SUPPORTED_LANGUAGES)[number];

/** The spec's detection order (section 1): query, cookie, storage, browser, page tag. */
export const DETECTION_ORDER = ['querystring', 'cookie', 'localStorage', 'sessionStorage', 'navigator', 'htmlTag'];

void i18n
  .use(LanguageDetector)
  .use(initReactI18next)
  .init({
    resources: { en: { translation: en }, sv: { translation: sv } },
    fallbackLng: 'en',
    supportedLngs: [...SUPPORTED_LANGUAGES],
    // sv-SE from the browser counts as sv.
    nonExplicitSupportedLngs: true,
    load: 'languageOnly',
    detection: {
      order: DETECTION_ORDER,
      lookupQuerystring: 'lang',
      caches: ['localStorage'],
    },
    interpolation: { escapeValue: false },
    react: { useSuspense: false },
  });

/** The language in use, reduced to a supported one. */
export function currentLanguage(): Language {
  const language = (i18n.resolvedLanguage ?? i18n.language ?? 'en').slice(0, 2);
  return language === 'sv' ? 'sv' : 'en';
}

function syncHtmlLang(): void {
  if (typeof document !== 'undefined') document.documentElement.lang = currentLanguage();
}

i18n.on('languageChanged', syncHtmlLang);
syncHtmlLang();

export default i18n;
