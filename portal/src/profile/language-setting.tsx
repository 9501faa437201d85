import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorAlert, Notice } from '../components/alert.tsx';
import { currentLanguage, SUPPORTED_LANGUAGES } from '../i18n/index.ts';
import { profileFailure } from './profile-errors.ts';
import { saveSetting, type Locale } from './profile-api.ts';
import { useSessionExpired } from './session-expired.ts';

type Outcome = 'saved' | 'failed' | null;

/**
 * The language select: the portal switches at once, then the choice is saved on the account
 * (`locale`); when saving fails the previous language comes back with the spec's message. While
 * saving it is aria-disabled (a change is ignored), not disabled: a disabled select loses focus
 * and a keyboard user would start again from the top of the page.
 */
export function LanguageSetting({ onSaved }: { onSaved: (locale: Locale) => void }) {
  const { t, i18n } = useTranslation();
  const sessionExpired = useSessionExpired();
  const id = useId();
  const [pending, setPending] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);

  const change = async (next: Locale) => {
    const previous = currentLanguage();
    setOutcome(null);
    setPending(true);
    await i18n.changeLanguage(next);
    try {
      await saveSetting({ key: 'locale', value: next });
      onSaved(next);
      setOutcome('saved');
    } catch (error) {
      if (profileFailure(error).kind === 'signed-out') return sessionExpired();
      await i18n.changeLanguage(previous);
      setOutcome('failed');
    } finally {
      setPending(false);
    }
  };

  return (
    <div className="field">
      <label htmlFor={`${id}-language`}>{t('profile.language')}</label>
      <select
        id={`${id}-language`}
        className="select"
        value={currentLanguage()}
        aria-disabled={pending || undefined}
        aria-busy={pending || undefined}
        onChange={(event) => {
          if (!pending) void change(event.target.value as Locale);
        }}
      >
        {SUPPORTED_LANGUAGES.map((language) => (
          <option key={language} value={language} lang={language}>
            {t(`language.${language}`)}
          </option>
        ))}
      </select>
      {outcome === 'saved' && <Notice message={t('profile.language_saved')} />}
      <ErrorAlert message={outcome === 'failed' ? t('errors.failed_to_update_language') : null} />
    </div>
  );
}
