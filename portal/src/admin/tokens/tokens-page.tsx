import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearch } from 'wouter';
import { listTokens, type AccessToken } from '../../api/admin.ts';
import { ListStatus } from '../list-status.tsx';
import { TOKENS_BACK_PARAM } from '../tenants/user-search.ts';
import { useLoad } from '../use-load.ts';
import { TTL_KEYS, ttlParts } from './token-ttl.ts';

/** /admin/tokens/:email/:account_id: the account's live store entries, key and time to live. */
export function TokensPage({ email, accountId }: { email: string; accountId: string }) {
  const { t } = useTranslation();
  // Back where the operator came from: an account row (?back=accounts) or a tenant's users.
  const fromAccounts = new URLSearchParams(useSearch()).get(TOKENS_BACK_PARAM) === 'accounts';
  const tokens = useLoad<AccessToken[]>();
  const { run } = tokens;
  useEffect(() => run(() => listTokens(accountId)), [run, accountId]);

  const withModel = (tokens.data ?? []).some((token) => token.model);
  const ttlText = (seconds: number) => {
    const parts = ttlParts(seconds);
    if (parts === null) return t('admin.ttl.never');
    return parts.map((part) => t(TTL_KEYS[part.unit], { count: part.count })).join(' ');
  };

  return (
    <section className="admin-page" aria-labelledby="admin-page-title">
      <p>
        {fromAccounts ? <Link href="/accounts">{t('admin.tokens_page.back_accounts')}</Link> : <Link href="/tenants">{t('admin.tenant.back')}</Link>}
      </p>
      <h1 id="admin-page-title">{t('admin.tokens')}</h1>
      <p className="muted">{t('admin.tokens_for', { email, id: accountId })}</p>
      <ListStatus status={tokens.status} failedMessage={t('admin.tokens_page.failed')} />
      {tokens.data && tokens.data.length === 0 && <p className="muted">{t('admin.tokens_page.empty')}</p>}
      {tokens.data && tokens.data.length > 0 && (
        <div className="table-scroll">
          <table className="admin-table">
            <thead>
              <tr>
                <th scope="col">{t('admin.tokens_page.key')}</th>
                {withModel && <th scope="col">{t('admin.tokens_page.model')}</th>}
                <th scope="col">{t('admin.tokens_page.ttl')}</th>
              </tr>
            </thead>
            <tbody>
              {tokens.data.map((token) => (
                <tr key={token.key}>
                  <td>
                    <code className="json">{token.key}</code>
                  </td>
                  {withModel && (
                    <td>
                      {token.model ?? ''}
                      {token.client_id && <span className="muted"> · {token.client_id}</span>}
                    </td>
                  )}
                  <td title={t('admin.tokens_page.seconds', { count: token.ttl })}>{ttlText(token.ttl)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
