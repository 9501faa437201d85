import { useEffect, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { LanguageSwitcher } from '../components/language-switcher.tsx';
import './profile.css';

/**
 * The public pages' frame (brand, card, language selector) with a wider card for settings. The
 * account settings page has its own language select, saved on the account, instead of the flags.
 */
export function ProfileLayout({ title, children, showLanguages = true }: { title: string; children: ReactNode; showLanguages?: boolean }) {
  const { t } = useTranslation();
  const name = t('app.name');
  useEffect(() => {
    document.title = `${title} – ${name}`;
  }, [title, name]);
  return (
    <div className="auth-page">
      <main className="auth-card profile-card">
        <header className="auth-brand">
          <span className="brand-mark" aria-hidden="true">
            N
          </span>
          <span className="brand-name">{name}</span>
        </header>
        {children}
      </main>
      {showLanguages && <LanguageSwitcher />}
    </div>
  );
}
