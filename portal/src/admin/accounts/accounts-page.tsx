import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { searchAccounts, type AdminAccount } from '../../api/admin.ts';
import { Button } from '../../components/button.tsx';
import { ListStatus } from '../list-status.tsx';
import { useCanChange } from '../operator.tsx';
import { SearchBox } from '../search-box.tsx';
import { sortByName } from '../sort-by-name.ts';
import { useLoad } from '../use-load.ts';
import { AccountRow } from './account-row.tsx';
import { ACCOUNT_SEARCH_LIMIT } from './account-view.ts';
import { ResetLinksModal } from './reset-links-modal.tsx';

/**
 * /admin/accounts: required search by name or email; the active reset links in a modal (admins).
 * The server answers at most ACCOUNT_SEARCH_LIMIT accounts: when it did, the page says more may
 * match and asks for a narrower term. A failed search says why when the answer does (a spent
 * search budget: how long to wait).
 */
export function AccountsPage() {
  const { t } = useTranslation();
  const [query, setQuery] = useState('');
  const [searched, setSearched] = useState('');
  const [linksOpen, setLinksOpen] = useState(false);
  // The reset links are admin only (a link signs its reader in as the account): hidden for support.
  const canSeeLinks = useCanChange();
  const accounts = useLoad<AdminAccount[]>();
  const resultsId = useId();
  const cappedId = useId();
  const list = accounts.data ?? [];
  const capped = list.length >= ACCOUNT_SEARCH_LIMIT;

  const search = (term: string) => {
    setSearched(term);
    accounts.run(async () => sortByName(await searchAccounts(term), (account) => account.email));
  };

  const clear = () => {
    setQuery('');
    setSearched('');
    accounts.clear();
  };

  const replace = (next: AdminAccount) => accounts.set(list.map((account) => (account.id === next.id ? next : account)));

  return (
    <section className="admin-page" aria-labelledby="admin-page-title">
      <div className="admin-page-head">
        <h1 id="admin-page-title">{t('admin.accounts')}</h1>
        {canSeeLinks && (
          <Button type="button" variant="secondary" onClick={() => setLinksOpen(true)} aria-haspopup="dialog">
            {t('admin.reset_links.open')}
          </Button>
        )}
      </div>
      <SearchBox
        label={t('admin.account.search_label')}
        hint={t('admin.account.search_hint')}
        value={query}
        onChange={setQuery}
        onSearch={search}
        onClear={clear}
        resultsId={list.length > 0 ? resultsId : undefined}
        busy={accounts.status === 'loading'}
        autoFocus
      />
      <ListStatus status={accounts.status} error={accounts.error} failedMessage={t('errors.failed_to_load_accounts')} />
      {accounts.status === 'idle' && accounts.data === null && <p className="muted">{t('admin.account.search_first')}</p>}
      {accounts.status === 'idle' && accounts.data !== null && list.length === 0 && <p className="muted">{t('admin.no_results', { query: searched })}</p>}
      {capped && (
        <p className="muted" id={cappedId}>
          {t('admin.account.matching_capped', { count: ACCOUNT_SEARCH_LIMIT })}
        </p>
      )}
      {list.length > 0 && (
        <ul className="admin-rows" id={resultsId} aria-label={t('admin.results_for', { query: searched })} aria-describedby={capped ? cappedId : undefined}>
          {list.map((account) => (
            <AccountRow key={account.id} account={account} onChange={replace} />
          ))}
        </ul>
      )}
      <ResetLinksModal open={linksOpen && canSeeLinks} onClose={() => setLinksOpen(false)} />
    </section>
  );
}
