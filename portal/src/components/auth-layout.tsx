import { useEffect, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { LanguageSwitcher } from './language-switcher.tsx';

interface AuthLayoutProps {
  /** The page title shown above the card (product name or "Sharing portal"). */
  brand?: string;
  showLanguages?: boolean;
  /** mode=refresh: a compact card without the brand header. */
  compact?: boolean;
  children: ReactNode;
}

/** Frame of every public page: brand, language selector, one centred card. */
export function AuthLayout({ brand, showLanguages = true, compact = false, children }: AuthLayoutProps) {
  const { t } = useTranslation();
  const name = brand ?? t('app.name');
  useEffect(() => {
    document.title = name;
  }, [name]);
  return (
    <div className={compact ? 'auth-page compact' : 'auth-page'}>
      <main className="auth-card">
        {!compact && (
          <header className="auth-brand">
            <span className="brand-mark" aria-hidden="true">
              N
            </span>
            <span className="brand-name">{name}</span>
          </header>
        )}
        {children}
      </main>
      {/* In a landmark, as the rest of the page: a screen reader's landmark list reaches it too. */}
      {showLanguages && (
        <footer>
          <LanguageSwitcher />
        </footer>
      )}
    </div>
  );
}
