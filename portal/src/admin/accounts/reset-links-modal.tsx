import { useEffect, useId, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { listPasswordResets, type PasswordResetLink } from '../../api/admin.ts';
import { ErrorAlert, Notice } from '../../components/alert.tsx';
import { Button } from '../../components/button.tsx';
import { consoleErrorKind } from '../admin-auth.ts';
import { ListStatus } from '../list-status.tsx';
import { Modal } from '../modal.tsx';
import { useLoad } from '../use-load.ts';
import { filterResetLinks } from './account-view.ts';

/**
 * The active password-reset links, fetched each time the modal opens (they expire), filtered by
 * email and sorted by email ascending; each can be copied. Closing empties the list. Admin only:
 * the page hides the button from support, and a 403 that still comes back (opened before the role
 * was known) says so here rather than sending an operator who is signed in to sign in again.
 */
export function ResetLinksModal({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const id = useId();
  // Shown inside the modal: while it is open the rest of the page (and its messages) is inert.
  const [copied, setCopied] = useState<{ ok: boolean; email: string } | null>(null);
  const links = useLoad<PasswordResetLink[]>();
  const [filter, setFilter] = useState('');
  const [refused, setRefused] = useState(false);
  const { run, clear } = links;

  useEffect(() => {
    if (open) {
      // A refusal answered after an earlier opening was closed must not colour this one.
      setRefused(false);
      run(async () => {
        try {
          return await listPasswordResets();
        } catch (error) {
          if (consoleErrorKind(error, 'action') !== 'forbidden') throw error;
          setRefused(true);
          // Not an ApiError: the loader shows the failure and leaves navigation alone.
          throw new Error('role refused');
        }
      });
    } else {
      clear();
      setFilter('');
      setCopied(null);
      setRefused(false);
    }
  }, [open, run, clear]);

  const shown = useMemo(() => filterResetLinks(links.data ?? [], filter), [links.data, filter]);

  const copy = async (item: PasswordResetLink) => {
    try {
      await navigator.clipboard.writeText(item.link);
      setCopied({ ok: true, email: item.email });
    } catch {
      setCopied({ ok: false, email: item.email });
    }
  };

  return (
    <Modal open={open} title={t('admin.reset_links.title')} onClose={onClose} wide>
      <div className="field">
        <label htmlFor={`${id}-filter`}>{t('admin.reset_links.filter')}</label>
        <input id={`${id}-filter`} type="search" autoComplete="off" value={filter} onChange={(event) => setFilter(event.target.value)} data-autofocus />
      </div>
      {copied?.ok && <Notice message={t('success.reset_link_copied')} />}
      {copied && !copied.ok && <ErrorAlert message={t('admin.reset_links.copy_failed')} />}
      <ListStatus status={links.status} failedMessage={refused ? t('admin.reset_links.admins_only') : t('errors.failed_to_load_password_resets')} />
      {links.data && shown.length === 0 && <p className="muted">{t('admin.reset_links.none')}</p>}
      {shown.length > 0 && (
        <ul className="reset-links" aria-label={t('admin.reset_links.title')}>
          {shown.map((item) => (
            <li key={item.link}>
              <span className="reset-email">{item.email}</span>
              <code className="reset-link">{item.link}</code>
              <Button type="button" variant="secondary" onClick={() => void copy(item)} aria-label={t('admin.reset_links.copy_for', { email: item.email })}>
                {t('admin.reset_links.copy')}
              </Button>
            </li>
          ))}
        </ul>
      )}
    </Modal>
  );
}
