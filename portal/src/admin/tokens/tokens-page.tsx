import { useCallback, useEffect, useId, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useSearch } from 'wouter';
import { deviceName } from '../../../../src/http/device-name.ts';
import { listTokens } from '../../api/admin.ts';
import { ListStatus } from '../list-status.tsx';
import { TOKENS_BACK_PARAM, tokensPath } from '../tenants/user-search.ts';
import { useLoad } from '../use-load.ts';
import { formatUtc } from '../utc-time.ts';
import { TTL_KEYS, ttlParts } from './token-ttl.ts';
import { EndSessionButton } from './end-session-button.tsx';
import { isSession, loadTokensView, type TokenEntry, type TokensAccount, type TokensView } from './tokens-api.ts';

/**
 * /admin/tokens/:email/:account_id: the account's live store entries, key and time to live, and
 * for sign-in sessions when, from where and with which browser they signed in, and an End
 * session button on each of them.
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
  const { run, set } = view;
  useEffect(() => run(() => loadTokensView(accountId)), [run, accountId]);
  const heading = useRef<HTMLHeadingElement>(null);
  // What the page shows now, for an End session whose answer comes after later renders.
  const data = useRef(view.data);
  useEffect(() => {
    data.current = view.data;
  });

  /**
   * A session ended: its row goes at once, and the focus, which was on its button, to the heading.
   * Then the list is read again, for the rows that ended with it (the OP sessions it signed in,
   * the applications' grants and tokens). That read costs a point of the read budget as every
   * list does; when it is refused the page keeps the list without the row.
   */
  const dropSession = useCallback(
    (key: string) => {
      const shown = data.current;
      if (!shown) return;
      set({ ...shown, tokens: shown.tokens.filter((token) => token.key !== key) });
      heading.current?.focus();
      listTokens(accountId).then(
        (tokens) => {
          if (data.current?.account.id === accountId) set({ ...data.current, tokens });
        },
        () => undefined,
      );
    },
    [set, accountId],
  );

  const account = view.data?.account;
  useEffect(() => {
    if (account && account.email !== email) navigate(tokensPath(account.email, accountId, fromAccounts ? 'accounts' : 'tenants'), { replace: true });
  }, [account, email, accountId, fromAccounts, navigate]);

  const tokens = view.data?.tokens;
  const withModel = (tokens ?? []).some((token) => token.model);
  const withSessions = (tokens ?? []).some(isSession);
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
      {/* Focusable from code only: where the focus goes when an ended session's row goes. */}
      <h1 id="admin-page-title" ref={heading} tabIndex={-1}>
        {t('admin.tokens')}
      </h1>
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
                {withSessions && <th scope="col">{t('admin.tokens_page.actions')}</th>}
              </tr>
            </thead>
            <tbody>
              {tokens.map((token) => (
                <TokenRow
                  key={token.key}
                  token={token}
                  account={account}
                  withModel={withModel}
                  withSessions={withSessions}
                  ttl={ttlText(token.ttl)}
                  onEnded={dropSession}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

interface TokenRowProps {
  token: TokenEntry;
  /** Whose entries these are, as the server said; no action until it has. */
  account: TokensAccount | undefined;
  withModel: boolean;
  withSessions: boolean;
  ttl: string;
  onEnded: (key: string) => void;
}

/** One entry of the table; a session's End session button is described by its facts (which browser, from where). */
function TokenRow({ token, account, withModel, withSessions, ttl, onEnded }: TokenRowProps) {
  const { t } = useTranslation();
  const factsId = useId();
  return (
    <tr>
      <td>
        <code className="json">{token.key}</code>
      </td>
      {withModel && (
        <td id={factsId}>
          {token.model ?? ''}
          {token.client_id && <span className="muted"> · {token.client_id}</span>}
          <SessionFacts token={token} />
        </td>
      )}
      <td title={t('admin.tokens_page.seconds', { count: token.ttl })}>{ttl}</td>
      {withSessions && (
        <td className="row-action">
          {account && isSession(token) && (
            <EndSessionButton accountId={account.id} email={account.email} session={token} describedBy={withModel ? factsId : undefined} onEnded={onEnded} />
          )}
        </td>
      )}
    </tr>
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
