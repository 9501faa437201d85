import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../components/alert.tsx';
import { AuthLayout } from '../components/auth-layout.tsx';
import { useUserInfo } from './use-userinfo.ts';

/** Frame shared by the profile placeholders: loads user info first (401 → /login). */
function ProfileFrame({ title, children }: { title: string; children?: ReactNode }) {
  const { t } = useTranslation();
  const info = useUserInfo();
  return (
    <AuthLayout>
      <section className="step">
        <h1 id="profile-title">{title}</h1>
        {info.status === 'loading' && <p role="status">{t('app.loading')}</p>}
        {info.status === 'failed' && <ErrorAlert message={t('errors.unexpected_error')} />}
        {info.status === 'ready' && (
          <>
            <dl className="details">
              <dt>{t('profile.name')}</dt>
              <dd>{info.user.name || '—'}</dd>
              <dt>{t('profile.email')}</dt>
              <dd>{info.user.email}</dd>
            </dl>
            {children}
          </>
        )}
      </section>
    </AuthLayout>
  );
}

/** /profile — placeholder until the profile work lands. */
export function ProfilePage() {
  const { t } = useTranslation();
  return (
    <ProfileFrame title={t('profile.title')}>
      <p className="muted">{t('app.coming_soon')}</p>
    </ProfileFrame>
  );
}

/** /profile/credentials/totp/setup — placeholder until the profile work lands. */
export function TotpSetupPage() {
  const { t } = useTranslation();
  return (
    <ProfileFrame title={t('profile.totp_title')}>
      <p className="muted">{t('app.coming_soon')}</p>
    </ProfileFrame>
  );
}
