import { useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { AdminTenant } from '../../api/admin.ts';
import { capCount } from '../count-badge.ts';
import { useImpersonate } from '../impersonation/impersonation.tsx';
import { TenantDetails } from './tenant-details.tsx';

interface TenantRowProps {
  tenant: AdminTenant;
  expanded: boolean;
  highlighted: boolean;
  onToggle: () => void;
}

/**
 * One tenant of the results. Its details load the first time it is expanded and stay loaded while
 * the results stand (collapsing only hides them).
 */
export function TenantRow({ tenant, expanded, highlighted, onToggle }: TenantRowProps) {
  const { t } = useTranslation();
  const detailsId = useId();
  const ref = useRef<HTMLLIElement>(null);
  const [loaded, setLoaded] = useState(expanded);
  const impersonate = useImpersonate();

  useEffect(() => {
    if (expanded) setLoaded(true);
  }, [expanded]);

  useEffect(() => {
    if (highlighted) ref.current?.scrollIntoView({ block: 'nearest' });
  }, [highlighted]);

  const inactive = tenant.inactive_at !== null && new Date(tenant.inactive_at).getTime() <= Date.now();
  const classes = ['admin-row', highlighted ? 'highlighted' : '', inactive ? 'inactive' : ''].filter(Boolean).join(' ');
  return (
    <li ref={ref} className={classes} aria-current={highlighted || undefined} data-tenant-slug={tenant.slug}>
      <div className="admin-row-head">
        <button type="button" className="row-toggle" aria-expanded={expanded} aria-controls={detailsId} onClick={onToggle}>
          <span className="chevron" aria-hidden="true">
            {expanded ? '▾' : '▸'}
          </span>
          <span className="row-title">{tenant.name}</span>
        </button>
        <code className="slug">{tenant.slug}</code>
        <span className="badge" title={t('admin.tenant.users_count', { count: tenant.user_count })}>
          <span aria-hidden="true">{capCount(tenant.user_count)}</span>
          <span className="visually-hidden">{t('admin.tenant.users_count', { count: tenant.user_count })}</span>
        </span>
        {inactive && <span className="badge badge-muted">{t('admin.tenant.inactive')}</span>}
        {impersonate && !inactive && (
          <button
            type="button"
            className="btn btn-secondary btn-small login-as"
            aria-label={t('impersonation.login_as_admin_to', { tenant: tenant.name })}
            onClick={() => impersonate({ tenantId: tenant.id, tenantName: tenant.name, as: 'admin' })}
          >
            {t('impersonation.login_as_admin')}
          </button>
        )}
      </div>
      <div id={detailsId} hidden={!expanded}>
        {loaded && <TenantDetails tenant={tenant} />}
      </div>
    </li>
  );
}
