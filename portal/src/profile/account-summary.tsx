import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { UserInfo } from '../api/types.ts';
import { initialsOf } from './initials.ts';

/** Avatar, name and the email address (read-only: it is the account's identity). */
export function AccountSummary({ user }: { user: UserInfo }) {
  const { t } = useTranslation();
  return (
    <div className="profile-summary">
      <Avatar user={user} />
      <dl className="details">
        <dt>{t('profile.name')}</dt>
        <dd>{user.name || '—'}</dd>
        <dt>{t('profile.email')}</dt>
        <dd>{user.email}</dd>
      </dl>
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
