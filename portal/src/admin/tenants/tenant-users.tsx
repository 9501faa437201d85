import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { listTenantUsers, type AdminTenant, type TenantUser } from '../../api/admin.ts';
import { capCount } from '../count-badge.ts';
import { useImpersonate } from '../impersonation/impersonation.tsx';
import { ListStatus } from '../list-status.tsx';
import { useLoad } from '../use-load.ts';
import { filterTenantUsers, narrowedFrom, TENANT_USERS_LIMIT, tokensPath, USER_SEARCH_MIN, type CompleteSearch } from './user-search.ts';

/** Typing pauses this long before a search goes to the server (each one spends the operator's read budget). */
const SEARCH_DELAY_MS = 400;

/**
 * A tenant's users: search by name or email from 3 characters; inactive users greyed. Each links to
 * its tokens page and, where the access is active, to logging in as that user. The server answers at
 * most TENANT_USERS_LIMIT users; when it did, the hint says so and the search goes to the server.
 */
export function TenantUsers({ tenant, users }: { tenant: Pick<AdminTenant, 'id' | 'name' | 'inactive_at'>; users: TenantUser[] }) {
  const { t } = useTranslation();
  const impersonate = useImpersonate();
  const tenantActive = tenant.inactive_at === null || new Date(tenant.inactive_at).getTime() > Date.now();
  const id = useId();
  const [query, setQuery] = useState('');
  const term = query.trim();
  const searching = term.length >= USER_SEARCH_MIN;
  // A list as long as the server's cap may have more behind it: then the search asks the server.
  // A shorter list is everyone, and is filtered here.
  const capped = users.length >= TENANT_USERS_LIMIT;
  const found = useLoad<TenantUser[]>();
  const { run: runSearch, clear: clearSearch } = found;
  // The last server answer that held all its matches: typing on narrows it here (narrowedFrom).
  const [complete, setComplete] = useState<CompleteSearch | null>(null);
  useEffect(() => setComplete(null), [tenant.id]);
  const narrowed = narrowedFrom(complete, term);
  const asked = useRef('');
  useEffect(() => {
    if (!capped || !searching) return clearSearch();
    if (narrowed) return;
    const timer = setTimeout(() => {
      asked.current = term;
      runSearch(() => listTenantUsers(tenant.id, term));
    }, SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [capped, searching, term, tenant.id, runSearch, clearSearch, narrowed]);
  useEffect(() => {
    if (found.data && found.data.length < TENANT_USERS_LIMIT) setComplete({ term: asked.current, users: found.data });
  }, [found.data]);
  // A failed search shows why, never the loaded users as if they were its answer; until the server
  // answers, the loaded users (or the previous answer) are filtered by the new text.
  const failed = capped && searching && !narrowed && found.status === 'failed';
  const source = failed ? [] : capped && searching ? (narrowed ?? found.data ?? users) : users;
  const shown = useMemo(() => filterTenantUsers(source, query), [source, query]);
  const hint = failed
    ? ''
    : searching
    ? capped && !narrowed && found.data && found.data.length >= TENANT_USERS_LIMIT
      ? t('admin.tenant.users_matching_capped', { count: TENANT_USERS_LIMIT })
      : t('admin.tenant.users_matching', { count: shown.length })
    : capped
      ? `${t('admin.tenant.user_search_hint', { count: USER_SEARCH_MIN })} ${t('admin.tenant.users_capped', { count: TENANT_USERS_LIMIT })}`
      : t('admin.tenant.user_search_hint', { count: USER_SEARCH_MIN });

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
          {hint}
        </p>
        {failed && <ListStatus status="failed" error={found.error} failedMessage={t('admin.tenant.failed_users')} />}
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
                {impersonate && (
                  <th scope="col">
                    <span className="visually-hidden">{t('impersonation.login_as_user')}</span>
                  </th>
                )}
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
                  {impersonate && (
                    <td>
                      {user.active && tenantActive && (
                        <button
                          type="button"
                          className="btn btn-link btn-small"
                          aria-label={t('impersonation.login_as_user_named', { who: user.email })}
                          onClick={() => impersonate({ tenantId: tenant.id, tenantName: tenant.name, as: 'user', accountId: user.id, who: user.name || user.email })}
                        >
                          {t('impersonation.login_as_user')}
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
