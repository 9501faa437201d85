import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useSearch } from 'wouter';
import { deviceName } from '../../../../src/http/device-name.ts';
import { ListStatus } from '../list-status.tsx';
import { TOKENS_BACK_PARAM, tokensPath } from '../tenants/user-search.ts';
import { useLoad } from '../use-load.ts';
import { formatUtc } from '../utc-time.ts';
import { TTL_KEYS, ttlParts } from './token-ttl.ts';
import { loadTokensView, type TokenEntry, type TokensView } from './tokens-api.ts';

/**
 * /admin/tokens/:email/:account_id: the account's live store entries, key and time to live, and
 * for sign-in sessions when, from where and with which browser they signed in.
 *
 * The address shown is the one the server has for the id, never the URL's: anyone can write any
 * address into a link, and an operator must not read one account's sessions as another's. A URL
 * whose address differs is replaced with the account's own.
 */
export function TokensPage({ email, accountId }: { email: string; accountId: string }) {
  const { t } = useTranslation();
  const search = useSearch();
  const [, navigate] = useLocation();
  // Back where the operator came from: an account row (?back=accounts) or a tenant's users.
  const fromAccounts = new URLSearchParams(search).get(TOKENS_BACK_PARAM) === 'accounts';
  const view = useLoad<TokensView>();
  const { run } = view;
  useEffect(() => run(() => loadTokensView(accountId)), [run, accountId]);

  const account = view.data?.account;
  useEffect(() => {
    if (account && account.email !== email) navigate(tokensPath(account.email, accountId, fromAccounts ? 'accounts' : 'tenants'), { replace: true });
  }, [account, email, accountId, fromAccounts, navigate]);

  const tokens = view.data?.tokens;
  const withModel = (tokens ?? []).some((token) => token.model);
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
      {account && <p className="muted">{t('admin.tokens_for', { email: account.email, id: account.id })}</p>}
      <ListStatus status={view.status} error={view.error} failedMessage={t('admin.tokens_page.failed')} />
      {tokens && tokens.length === 0 && <p className="muted">{t('admin.tokens_page.empty')}</p>}
      {tokens && tokens.length > 0 && (
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
              {tokens.map((token) => (
                <tr key={token.key}>
                  <td>
                    <code className="json">{token.key}</code>
                  </td>
                  {withModel && (
                    <td>
                      {token.model ?? ''}
                      {token.client_id && <span className="muted"> · {token.client_id}</span>}
                      <SessionFacts token={token} />
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

/**
 * A sign-in session's sign-in time, browser, address and last use, one a line, so the person's
 * own sessions can be told from a stranger's. Nothing for entries that are not sessions.
 */
function SessionFacts({ token }: { token: TokenEntry }) {
  const { t } = useTranslation();
  const signedIn = formatUtc(token.signed_in_at);
  const lastSeen = formatUtc(token.last_seen_at);
  if (!signedIn && !lastSeen && !token.ip && !token.user_agent) return null;
  const { browser, os } = deviceName(token.user_agent ?? null);
  const browserName = browser ?? t('profile.sessions.unknown_device');
  return (
    <div className="muted token-session">
      {signedIn && <div>{t('profile.sessions.signed_in', { when: signedIn })}</div>}
      <div title={token.user_agent ?? undefined}>{os ? t('profile.devices.name', { browser: browserName, os }) : browserName}</div>
      {token.ip && <div>{t('admin.tokens_page.ip', { ip: token.ip })}</div>}
      {lastSeen && <div>{t('profile.devices.last_used', { when: lastSeen })}</div>}
    </div>
  );
}
