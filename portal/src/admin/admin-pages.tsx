import { useTranslation } from 'react-i18next';

/** Placeholders until the console pages land; each keeps its heading and route. */
function Placeholder({ title, detail }: { title: string; detail?: string }) {
  const { t } = useTranslation();
  return (
    <section className="admin-page">
      <h1 id="admin-page-title">{title}</h1>
      {detail && <p>{detail}</p>}
      <p className="muted">{t('app.coming_soon')}</p>
    </section>
  );
}

export function TenantsPage() {
  const { t } = useTranslation();
  return <Placeholder title={t('admin.tenants')} />;
}

export function NewTenantPage() {
  const { t } = useTranslation();
  return <Placeholder title={t('admin.new_tenant')} />;
}

export function AccountsPage() {
  const { t } = useTranslation();
  return <Placeholder title={t('admin.accounts')} />;
}

export function InvoicePage() {
  const { t } = useTranslation();
  return <Placeholder title={t('admin.invoice')} />;
}

export function NotificationsPage() {
  const { t } = useTranslation();
  return <Placeholder title={t('admin.notifications')} />;
}

export function TokensPage({ email, accountId }: { email: string; accountId: string }) {
  const { t } = useTranslation();
  return <Placeholder title={t('admin.tokens')} detail={t('admin.tokens_for', { email, id: accountId })} />;
}
