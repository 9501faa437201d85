import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { UserInfo } from '../api/types.ts';
import { initialsOf } from './initials.ts';
import { LanguageSetting } from './language-setting.tsx';
import { NameSetting } from './name-setting.tsx';

interface AccountSummaryProps {
  user: UserInfo;
  /** A saved change: the page updates the user info it shows. */
  onChange: (change: Partial<UserInfo>) => void;
}

/** Avatar, name (editable), the email address (read-only: it is the account's identity) and language. */
export function AccountSummary({ user, onChange }: AccountSummaryProps) {
  const { t } = useTranslation();
  return (
    <div className="profile-summary">
      <Avatar user={user} />
      <div className="summary-main">
        <dl className="details">
          <dt>{t('profile.name')}</dt>
          <NameSetting name={user.name ?? ''} onSaved={(name) => onChange({ name })} />
          <dt>{t('profile.email')}</dt>
          <dd>{user.email}</dd>
        </dl>
        <LanguageSetting onSaved={(locale) => onChange({ locale })} />
      </div>
    </div>
  );
}

/** The account image, or initials when there is none or it fails to load. Decorative: the name is beside it. */
function Avatar({ user }: { user: UserInfo }) {
  const [broken, setBroken] = useState(false);
  if (user.profile_picture && !broken) {
    return <img className="avatar" src={user.profile_picture} alt="" referrerPolicy="no-referrer" onError={() => setBroken(true)} />;
  }
  return (
    <span className="avatar avatar-initials" aria-hidden="true">
      {initialsOf(user.name, user.email)}
    </span>
  );
}
