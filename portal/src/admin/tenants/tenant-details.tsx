import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { getTenant, listTenantUsers, type AdminTenant, type SettingEntry, type TenantDetail, type TenantUser } from '../../api/admin.ts';
import { ListStatus } from '../list-status.tsx';
import { useLoad } from '../use-load.ts';
import { formatUtc } from '../utc-time.ts';
import { SmsPanel } from './sms-panel.tsx';
import { withSetting } from './sms-settings.ts';
import { TenantUsers } from './tenant-users.tsx';

/** The expanded part of a tenant row: users, SMS settings, deactivation time and raw settings. */
export function TenantDetails({ tenant }: { tenant: AdminTenant }) {
  const { t } = useTranslation();
  const detail = useLoad<TenantDetail>();
  const users = useLoad<TenantUser[]>();
  const { run: runDetail } = detail;
  const { run: runUsers } = users;

  useEffect(() => {
    runDetail(() => getTenant(tenant.id));
    runUsers(() => listTenantUsers(tenant.id));
  }, [tenant.id, runDetail, runUsers]);

  const inactiveAt = detail.data ? detail.data.inactive_at : tenant.inactive_at;
  return (
    <div className="tenant-details">
      <section className="detail-section wide" aria-label={t('admin.tenant.users')}>
        <h2>{t('admin.tenant.users')}</h2>
        <ListStatus status={users.status} error={users.error} failedMessage={t('admin.tenant.failed_users')} />
        {users.data && <TenantUsers tenant={tenant} users={users.data} />}
      </section>

      <section className="detail-section wide" aria-label={t('admin.sms.title')}>
        <h2>{t('admin.sms.title')}</h2>
        <ListStatus status={detail.status} error={detail.error} failedMessage={t('admin.tenant.failed_details')} />
        {detail.data && <SmsPanel tenant={detail.data} onSaved={(entry) => detail.data && detail.set({ ...detail.data, settings: withSetting(detail.data.settings ?? [], entry) })} />}
      </section>

      <section className="detail-section" aria-label={t('admin.tenant.deactivation')}>
        <h2>{t('admin.tenant.deactivation')}</h2>
        <p>{formatUtc(inactiveAt) ?? t('admin.not_available')}</p>
      </section>

      <section className="detail-section" aria-label={t('admin.tenant.settings')}>
        <h2>{t('admin.tenant.settings')}</h2>
        {detail.data && <RawSettings entries={detail.data.settings ?? []} />}
      </section>
    </div>
  );
}

function RawSettings({ entries }: { entries: SettingEntry[] }) {
  const { t } = useTranslation();
  if (entries.length === 0) return <p className="muted">{t('admin.tenant.no_settings')}</p>;
  return (
    <div className="table-scroll">
      <table className="admin-table">
        <thead>
          <tr>
            <th scope="col">{t('admin.tenant.setting_key')}</th>
            <th scope="col">{t('admin.tenant.setting_value')}</th>
          </tr>
        </thead>
        <tbody>
          {[...entries]
            .sort((a, b) => a.key.localeCompare(b.key))
            .map((entry) => (
              <tr key={entry.key}>
                <th scope="row">
                  <code>{entry.key}</code>
                </th>
                <td>
                  <code className="json">{typeof entry.value === 'string' ? entry.value : JSON.stringify(entry.value)}</code>
                </td>
              </tr>
            ))}
        </tbody>
      </table>
    </div>
  );
}
