import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { tfaDevices } from '../api/client.ts';
import type { UserInfo } from '../api/types.ts';
import { ErrorAlert, Notice } from '../components/alert.tsx';
import { Button } from '../components/button.tsx';
import i18n, { currentLanguage } from '../i18n/index.ts';
import { AccountSummary } from './account-summary.tsx';
import { ActiveSessions } from './active-sessions.tsx';
import { PasswordChange } from './password-change.tsx';
import { RecentActivity } from './recent-activity.tsx';
import { arrivalNotice } from './profile-navigation.ts';
import { PasskeysSection } from './passkeys-section.tsx';
import { ProfileLayout } from './profile-layout.tsx';
import { RememberedDevices } from './remembered-devices.tsx';
import { SignInMethods } from './sign-in-methods.tsx';
import { TwoFactorSection } from './two-factor-section.tsx';
import { useLoad } from './use-load.ts';
import { useUserInfo } from './use-userinfo.ts';

/** /profile: account settings of the signed-in person (401 → /login). */
export function ProfilePage() {
  const { t } = useTranslation();
  const info = useUserInfo();
  useSavedLanguage(info.state.status === 'ready' ? info.state.data.locale : undefined);
  // Read once, then dropped from the history entry so a reload does not repeat it.
  const [notice] = useState(() => arrivalNotice(window.history.state));
  useEffect(() => {
    if (notice) window.history.replaceState(null, '');
  }, [notice]);

  return (
    <ProfileLayout title={t('profile.title')} showLanguages={false}>
      <section className="step profile">
        <h1 id="profile-title">{t('profile.title')}</h1>
        {/* Shown while it is true: turning two-factor off again on this page removes it. */}
        {notice === 'totp-activated' && info.state.status === 'ready' && hasTotp(info.state.data) && (
          <Notice message={t('profile.tfa.activated')} />
        )}
        {info.state.status === 'loading' && (
          <p className="page-loading" role="status">
            {t('app.loading')}
          </p>
        )}
        {info.state.status === 'failed' && (
          <>
            <ErrorAlert message={t('profile.load_failed')} />
            <Button type="button" variant="secondary" onClick={info.reload}>
              {t('app.retry')}
            </Button>
          </>
        )}
        {info.state.status === 'ready' && (
          <ProfileSections user={info.state.data} reloadUser={info.reload} updateUser={(change) => info.update((user) => ({ ...user, ...change }))} />
        )}
      </section>
    </ProfileLayout>
  );
}

const hasTotp = (user: UserInfo) => (user.available_credentials ?? []).some((credential) => credential.type === 'totp');

/** The language saved on the account wins when the profile loads (the portal's language switches at once). */
function useSavedLanguage(locale: string | null | undefined) {
  useEffect(() => {
    if ((locale === 'sv' || locale === 'en') && locale !== currentLanguage()) void i18n.changeLanguage(locale);
  }, [locale]);
}

interface SectionsProps {
  user: UserInfo;
  reloadUser: () => void;
  updateUser: (change: Partial<UserInfo>) => void;
}

function ProfileSections({ user, reloadUser, updateUser }: SectionsProps) {
  const devices = useLoad(tfaDevices);
  const credentials = user.available_credentials ?? [];
  return (
    <>
      <AccountSummary user={user} onChange={updateUser} />
      <SignInMethods credentials={credentials} user={user} onChanged={reloadUser} />
      {credentials.some((credential) => credential.type === 'password') && <PasswordChange onChanged={reloadUser} />}
      <TwoFactorSection
        email={user.email}
        credentials={credentials}
        onChanged={() => {
          reloadUser();
          devices.reload();
        }}
      />
      <PasskeysSection email={user.email} onChanged={reloadUser} />
      <RememberedDevices email={user.email} devices={devices} />
      <ActiveSessions />
      <RecentActivity />
    </>
  );
}
