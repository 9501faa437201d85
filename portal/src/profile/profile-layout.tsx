import { useEffect, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../components/alert.tsx';
import { Button } from '../components/button.tsx';
import { LanguageSwitcher } from '../components/language-switcher.tsx';
import { useSignOut } from './sign-out.ts';
import './profile.css';

/**
 * The public pages' frame (brand, card, language selector) with a wider card for settings and
 * Sign out (this browser) in the header: every profile page is a signed-in one. The account
 * settings page has its own language select, saved on the account, instead of the flags.
 */
export function ProfileLayout({ title, children, showLanguages = true }: { title: string; children: ReactNode; showLanguages?: boolean }) {
  const { t } = useTranslation();
  const name = t('app.name');
  const { pending, failed, signOut } = useSignOut();
  const signOutRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    document.title = `${title} – ${name}`;
  }, [title, name]);
  // The button was disabled while signing out: give focus back to it (enabled again) with the error.
  useEffect(() => {
    if (failed) signOutRef.current?.focus();
  }, [failed]);
  return (
    <div className="auth-page">
      <main className="auth-card profile-card">
        <header className="auth-brand">
          <span className="brand-mark" aria-hidden="true">
            N
          </span>
          <span className="brand-name">{name}</span>
          <Button ref={signOutRef} type="button" variant="secondary" className="profile-sign-out" loading={pending} onClick={() => void signOut()}>
            {t('profile.sign_out.button')}
          </Button>
        </header>
        <ErrorAlert message={failed ? t('profile.sign_out.failed') : null} />
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
