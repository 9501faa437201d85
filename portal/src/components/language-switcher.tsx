import type { ComponentType } from 'react';
import { useTranslation } from 'react-i18next';
import { currentLanguage, SUPPORTED_LANGUAGES, type Language } from '../i18n/index.ts';
import { BritishFlag, SwedishFlag } from './flags.tsx';

const flags: Record<Language, ComponentType> = { sv: SwedishFlag, en: BritishFlag };

/** Swedish/English flag selector; the choice is cached in localStorage by the detector. */
export function LanguageSwitcher() {
  const { t, i18n } = useTranslation();
  const active = currentLanguage();
  return (
    <div className="language-switcher" role="group" aria-label={t('language.label')}>
      {SUPPORTED_LANGUAGES.map((language) => {
        const Flag = flags[language];
        return (
          <button
            key={language}
            type="button"
            className="flag-button"
            lang={language}
            aria-pressed={active === language}
            onClick={() => void i18n.changeLanguage(language)}
          >
            <Flag />
            <span>{t(`language.${language}`)}</span>
          </button>
        );
      })}
    </div>
  );
}
