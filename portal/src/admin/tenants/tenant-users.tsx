import { useId, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import type { TenantUser } from '../../api/admin.ts';
import { capCount } from '../count-badge.ts';
import { filterTenantUsers, tokensPath, USER_SEARCH_MIN } from './user-search.ts';

/** A tenant's users: search by name or email from 3 characters; inactive users greyed. */
export function TenantUsers({ users }: { users: TenantUser[] }) {
  const { t } = useTranslation();
  const id = useId();
  const [query, setQuery] = useState('');
  const shown = useMemo(() => filterTenantUsers(users, query), [users, query]);
  const searching = query.trim().length >= USER_SEARCH_MIN;

  return (
    <>
      <div className="field user-search">
        <label htmlFor={`${id}-search`}>
          {t('admin.tenant.user_search')} <span className="badge">{capCount(users.length)}</span>
        </label>
        <input
          id={`${id}-search`}
          type="search"
          autoComplete="off"
          aria-describedby={`${id}-hint`}
          value={query}
          onChange={(event) => setQuery(event.target.value)}
          onKeyDown={(event) => {
            // Escape clears this search only, not the tenant search around it.
            if (event.key === 'Escape') {
              event.preventDefault();
              event.stopPropagation();
              setQuery('');
            }
          }}
        />
        <p className="muted" id={`${id}-hint`} aria-live="polite">
          {searching ? t('admin.tenant.users_matching', { count: shown.length }) : t('admin.tenant.user_search_hint', { count: USER_SEARCH_MIN })}
        </p>
      </div>
      {users.length === 0 ? (
        <p className="muted">{t('admin.tenant.no_users')}</p>
      ) : (
        <div className="table-scroll">
          <table className="admin-table">
            <thead>
              <tr>
                <th scope="col">{t('admin.name')}</th>
                <th scope="col">{t('admin.email')}</th>
                <th scope="col">{t('admin.tenant.user_status')}</th>
                <th scope="col">
                  <span className="visually-hidden">{t('admin.tokens')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {shown.map((user) => (
                <tr key={user.id} className={user.active ? undefined : 'inactive'}>
                  <td>{user.name}</td>
                  <td>{user.email}</td>
                  <td>{user.active ? t('admin.tenant.active') : t('admin.tenant.inactive')}</td>
                  <td>
                    <Link href={tokensPath(user.email, user.id)} aria-label={t('admin.tenant.tokens_of', { email: user.email })}>
                      {t('admin.tokens')}
                    </Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
