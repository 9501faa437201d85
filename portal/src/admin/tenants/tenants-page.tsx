import { useEffect, useId, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearch } from 'wouter';
import { searchTenants, type AdminTenant } from '../../api/admin.ts';
import { ErrorAlert } from '../../components/alert.tsx';
import { moveHighlight } from '../highlight.ts';
import { impersonationErrorKey } from '../impersonation/impersonation-api.ts';
import { useImpersonate } from '../impersonation/impersonation.tsx';
import { useCanChange } from '../operator.tsx';
import { ListStatus } from '../list-status.tsx';
import { SearchBox } from '../search-box.tsx';
import { sortByName } from '../sort-by-name.ts';
import { useLoad } from '../use-load.ts';
import { TenantRow } from './tenant-row.tsx';

/**
 * /admin and /admin/tenants: required search by name or slug. Enter searches, ArrowDown/ArrowUp
 * move a highlight through the results, Enter on the highlight logs in as admin to that tenant
 * (spec section 2; after the reason modal), Shift+Enter opens (or closes) its details, as a click
 * on the row does, Escape clears the search and the results. An operator who may not log in as
 * others (support) opens the details with Enter too. `?q=` runs a search on arrival (after creating
 * a tenant); `?impersonation_error=` is where a failed hand-off returns.
 */
export function TenantsPage() {
  const { t } = useTranslation();
  const params = new URLSearchParams(useSearch());
  const initial = params.get('q') ?? '';
  const handOffError = impersonationErrorKey(params.get('impersonation_error'));
  const impersonate = useImpersonate();
  const [query, setQuery] = useState(initial);
  const [searched, setSearched] = useState('');
  const [highlight, setHighlight] = useState<number | null>(null);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set());
  const tenants = useLoad<AdminTenant[]>();
  const resultsId = useId();
  const canChange = useCanChange();
  const sorted = useMemo(() => sortByName(tenants.data ?? [], (tenant) => tenant.slug), [tenants.data]);

  const search = (term: string) => {
    setSearched(term);
    setHighlight(null);
    setExpanded(new Set());
    tenants.run(() => searchTenants(term));
  };

  useEffect(() => {
    if (initial.trim() !== '') search(initial.trim());
    // Only on arrival: later searches come from the search box.
  }, []);

  const clear = () => {
    setQuery('');
    setSearched('');
    setHighlight(null);
    setExpanded(new Set());
    tenants.clear();
  };

  const toggle = (id: string) =>
    setExpanded((current) => {
      const next = new Set(current);
      if (!next.delete(id)) next.add(id);
      return next;
    });

  const highlighted = highlight === null ? undefined : sorted[highlight];

  return (
    <section className="admin-page" aria-labelledby="admin-page-title">
      <div className="admin-page-head">
        <h1 id="admin-page-title">{t('admin.tenants')}</h1>
        {canChange && (
          <Link href="/tenants/new" className="btn btn-primary icon-btn" aria-label={t('admin.new_tenant')} title={t('admin.new_tenant')}>
            <span aria-hidden="true">+</span>
          </Link>
        )}
      </div>
      <SearchBox
        label={t('admin.tenant.search_label')}
        hint={impersonate ? t('impersonation.search_hint') : t('admin.tenant.search_hint')}
        value={query}
        onChange={(value) => {
          setQuery(value);
          setHighlight(null);
        }}
        onSearch={search}
        onClear={clear}
        onMove={(delta) => setHighlight((current) => moveHighlight(current, delta, sorted.length))}
        onPick={(shift) => {
          if (!highlighted) return false;
          if (impersonate && !shift) impersonate({ tenantId: highlighted.id, tenantName: highlighted.name, as: 'admin' });
          else toggle(highlighted.id);
          return true;
        }}
        resultsId={sorted.length > 0 ? resultsId : undefined}
        busy={tenants.status === 'loading'}
        autoFocus
      />
      <p className="visually-hidden" role="status">
        {highlighted && highlight !== null
          ? t('admin.tenant.highlighted', { name: highlighted.name, position: highlight + 1, total: sorted.length })
          : ''}
      </p>
      {handOffError && <ErrorAlert message={t(handOffError)} />}
      <ListStatus status={tenants.status} error={tenants.error} failedMessage={t('errors.failed_to_load_tenants')} />
      {tenants.status === 'idle' && tenants.data === null && <p className="muted">{t('admin.tenant.search_first')}</p>}
      {tenants.status === 'idle' && tenants.data !== null && sorted.length === 0 && (
        <p className="muted">{t('admin.no_results', { query: searched })}</p>
      )}
      {sorted.length > 0 && (
        <ul className="admin-rows" id={resultsId} aria-label={t('admin.results_for', { query: searched })}>
          {sorted.map((tenant, index) => (
            <TenantRow
              key={tenant.id}
              tenant={tenant}
              expanded={expanded.has(tenant.id)}
              highlighted={index === highlight}
              onToggle={() => {
                setHighlight(index);
                toggle(tenant.id);
              }}
            />
          ))}
        </ul>
      )}
    </section>
  );
}
