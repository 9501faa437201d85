import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { listTenants, sendNotification, type AdminTenant } from '../../api/admin.ts';
import { ErrorAlert, Notice } from '../../components/alert.tsx';
import { Button } from '../../components/button.tsx';
import { useFocusBack } from '../../components/use-focus-back.ts';
import { useAdminErrorHandler } from '../admin-auth.ts';
import { useConfirm } from '../confirm-modal.tsx';
import { capCount } from '../count-badge.ts';
import { failureText } from '../failure-text.ts';
import { ListStatus } from '../list-status.tsx';
import { sortByName } from '../sort-by-name.ts';
import { useLoad } from '../use-load.ts';

/**
 * /admin/notifications: message (required), admins only, tenants (none chosen: every tenant,
 * after a confirmation), popup, new functionality. The tenant choices come from the tenant list.
 */
export function NotificationsPage() {
  const { t } = useTranslation();
  const id = useId();
  const handleAdminError = useAdminErrorHandler();
  const [confirmModal, ask] = useConfirm();
  const tenants = useLoad<AdminTenant[]>();
  const { run } = tenants;
  const [message, setMessage] = useState('');
  const [adminsOnly, setAdminsOnly] = useState(false);
  const [popup, setPopup] = useState(false);
  const [newFunctionality, setNewFunctionality] = useState(false);
  const [chosen, setChosen] = useState<ReadonlySet<string>>(() => new Set());
  const [tenantFilter, setTenantFilter] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  const messageField = useRef<HTMLTextAreaElement>(null);
  const sendButton = useRef<HTMLButtonElement>(null);
  // Sending disables Send (and the confirmation hands the focus back to it just then), which drops
  // the focus: it comes back to Send after a failure, to the message after a send (Send is disabled
  // until a new message is written).
  useFocusBack(busy, result?.ok ? messageField : sendButton);

  useEffect(() => run(listTenants), [run]);

  const all = useMemo(() => sortByName(tenants.data ?? [], (tenant) => tenant.slug), [tenants.data]);
  const term = tenantFilter.trim().toLowerCase();
  const shown = term === '' ? all : all.filter((tenant) => tenant.name.toLowerCase().includes(term) || tenant.slug.includes(term));
  const canSend = message.trim() !== '';

  const toggle = (tenantId: string) =>
    setChosen((current) => {
      const next = new Set(current);
      if (!next.delete(tenantId)) next.add(tenantId);
      return next;
    });

  const send = async () => {
    setBusy(true);
    setResult(null);
    try {
      await sendNotification({ message: message.trim(), admins_only: adminsOnly, tenants: [...chosen], popup, new_functionality: newFunctionality });
      setResult({ ok: true, text: t('success.notification_sent') });
      setMessage('');
      setAdminsOnly(false);
      setPopup(false);
      setNewFunctionality(false);
      setChosen(new Set());
    } catch (error) {
      if (!handleAdminError(error, 'action')) setResult({ ok: false, text: failureText(t('admin.notification.failed'), error, t) });
    } finally {
      setBusy(false);
    }
  };

  // No tenant chosen reaches every tenant: that is asked first, starting on Cancel.
  const submit = () => {
    if (!canSend) return;
    if (chosen.size > 0) {
      void send();
      return;
    }
    const count = tenants.data?.length;
    ask({
      title: t('admin.notification.confirm_all_title'),
      content: count === undefined ? t('admin.notification.confirm_all_body') : t('admin.notification.confirm_all_count', { count }),
      warning: true,
      confirmLabel: t('admin.notification.confirm_all'),
      onConfirm: send,
    });
  };

  return (
    <section className="admin-page narrow" aria-labelledby="admin-page-title">
      <h1 id="admin-page-title">{t('admin.notifications')}</h1>
      <form
        className="form"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <div className="field">
          <label htmlFor={`${id}-message`}>{t('admin.notification.message')}</label>
          <textarea
            ref={messageField}
            id={`${id}-message`}
            rows={5}
            required
            aria-required="true"
            value={message}
            onChange={(event) => {
              setMessage(event.target.value);
              setResult(null);
            }}
          />
        </div>
        <label className="checkbox">
          <input type="checkbox" checked={adminsOnly} onChange={(event) => setAdminsOnly(event.target.checked)} />
          {t('admin.notification.admins_only')}
        </label>
        <label className="checkbox">
          <input type="checkbox" checked={popup} onChange={(event) => setPopup(event.target.checked)} />
          {t('admin.notification.popup')}
        </label>
        <label className="checkbox">
          <input type="checkbox" checked={newFunctionality} onChange={(event) => setNewFunctionality(event.target.checked)} />
          {t('admin.notification.new_functionality')}
        </label>
        <fieldset className="tenant-picker">
          <legend>
            {t('admin.notification.tenants')} <span className="badge">{chosen.size === 0 ? t('admin.notification.all') : capCount(chosen.size)}</span>
          </legend>
          <p className="muted">{t('admin.notification.tenants_hint')}</p>
          <ListStatus status={tenants.status} error={tenants.error} failedMessage={t('errors.failed_to_load_tenants')} />
          {all.length > 0 && (
            <>
              {/* Enter in this search box filters as typed; it must never submit (send) the form. */}
              <div className="field">
                <label htmlFor={`${id}-filter`}>{t('admin.notification.tenant_filter')}</label>
                <input
                  id={`${id}-filter`}
                  type="search"
                  autoComplete="off"
                  value={tenantFilter}
                  onChange={(event) => setTenantFilter(event.target.value)}
                  onKeyDown={(event) => {
                    if (event.key === 'Enter') event.preventDefault();
                  }}
                />
              </div>
              <ul className="picker-list">
                {shown.map((tenant) => (
                  <li key={tenant.id}>
                    <label className="checkbox">
                      <input type="checkbox" checked={chosen.has(tenant.id)} onChange={() => toggle(tenant.id)} />
                      {tenant.name} <code className="slug">{tenant.slug}</code>
                    </label>
                  </li>
                ))}
              </ul>
            </>
          )}
        </fieldset>
        {result?.ok && <Notice message={result.text} />}
        {result && !result.ok && <ErrorAlert message={result.text} />}
        <div className="actions">
          <Button ref={sendButton} disabled={!canSend} loading={busy}>
            {t('admin.notification.send')}
          </Button>
        </div>
      </form>
      {confirmModal}
    </section>
  );
}
