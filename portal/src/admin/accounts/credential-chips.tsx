import { useEffect, useRef, useState, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { deleteAccountCredential, type AdminAccount } from '../../api/admin.ts';
import { isApiError } from '../../api/client.ts';
import { focusIsLost } from '../../components/use-focus-back.ts';
import { useAdminErrorHandler } from '../admin-auth.ts';
import { useConfirm } from '../confirm-modal.tsx';
import { failureText } from '../failure-text.ts';
import { useCanChange } from '../operator.tsx';
import { useToast } from '../toast.tsx';
import { canDeleteCredential, credentialLabel, credentialNote, credentialText, focusAfterDelete, type ConsoleCredential, type CredentialLabel } from './account-view.ts';

/** Short marks inside the credential icons; the full name is the accessible one. */
const CREDENTIAL_MARKS: Record<CredentialLabel, string> = {
  password: '***',
  google: 'G',
  microsoft: 'M',
  oidc: 'ID',
  webauthn: 'PK',
  totp: '2FA',
  other: '?',
};

interface CredentialChipsProps {
  account: AdminAccount;
  onChange: (account: AdminAccount) => void;
  /** Where the focus goes when the row has no other credential to delete: the row's title. */
  fallbackFocus: RefObject<HTMLElement | null>;
}

/**
 * An account's credentials as chips, each named with its kind, a passkey's name and when it was
 * added; admins delete one after confirming. The chip is busy while the DELETE runs, so it cannot
 * be asked twice, and the focus then moves to the next chip (or back to the chip when it failed).
 */
export function CredentialChips({ account, onChange, fallbackFocus }: CredentialChipsProps) {
  const { t } = useTranslation();
  const toast = useToast();
  const handleAdminError = useAdminErrorHandler();
  const [confirmModal, ask] = useConfirm();
  const canChange = useCanChange();
  const [deleting, setDeleting] = useState<ReadonlySet<string>>(new Set());
  const deleteButtons = useRef(new Map<string, HTMLButtonElement>());
  // Two deletions may end in either order: each removes its credential from the account as it is then.
  const latest = useRef({ account, onChange });
  // The chip (id) or the row's title (null) to focus after the render that follows a deletion.
  const refocus = useRef<string | null | undefined>(undefined);
  const credentials: readonly ConsoleCredential[] = account.available_credentials;

  useEffect(() => {
    latest.current = { account, onChange };
    if (refocus.current === undefined) return;
    const target = refocus.current === null ? undefined : deleteButtons.current.get(refocus.current);
    refocus.current = undefined;
    // Only when the focus fell with the button: an operator who moved it meanwhile keeps it there.
    if (!focusIsLost()) return;
    if (target && !target.disabled) target.focus();
    else fallbackFocus.current?.focus();
  });

  const setBusy = (id: string, busy: boolean) =>
    setDeleting((all) => {
      const next = new Set(all);
      if (busy) next.add(id);
      else next.delete(id);
      return next;
    });

  /** Takes the credential off the row, from the account as it is now, and picks where the focus goes. */
  const removeChip = (id: string) => {
    const current = latest.current.account;
    const deletable = current.available_credentials.filter((item) => canDeleteCredential(current, item)).map((item) => item.id);
    refocus.current = focusAfterDelete(deletable, id);
    latest.current.onChange({ ...current, available_credentials: current.available_credentials.filter((item) => item.id !== id) });
  };

  const askDelete = (credential: ConsoleCredential, name: string) =>
    ask({
      title: t('admin.credential.delete_title'),
      content: t('admin.credential.delete_confirm', { credential: name, email: account.email }),
      warning: true,
      confirmLabel: t('admin.credential.delete'),
      onConfirm: async () => {
        setBusy(credential.id, true);
        try {
          await deleteAccountCredential(account.id, credential.id);
          removeChip(credential.id);
          toast('success', t('success.credential_deleted'));
        } catch (error) {
          if (isApiError(error) && error.status === 404) {
            // Gone already (a colleague or the person removed it meanwhile): the chip goes too, so
            // the row no longer offers what is not there.
            removeChip(credential.id);
            toast('success', t('admin.credential.already_deleted'));
            return;
          }
          refocus.current = credential.id;
          if (handleAdminError(error, 'action')) return;
          if (isApiError(error) && error.type === 'credential/second-factor-required') toast('error', t('admin.credential.operator_second_factor'));
          else toast('error', failureText(t('errors.failed_to_delete_credential'), error, t));
        } finally {
          setBusy(credential.id, false);
        }
      },
    });

  if (credentials.length === 0) return <>{t('admin.account.no_credentials')}</>;
  return (
    <>
      <ul className="chips">
        {credentials.map((credential) => {
          const name = credentialText(credential, t);
          const note = credentialNote(credential, credentials);
          const busy = deleting.has(credential.id);
          return (
            <li key={credential.id} className={busy ? 'chip credential pending' : 'chip credential'} title={name} aria-busy={busy || undefined}>
              <span aria-hidden="true" className="chip-mark">
                {CREDENTIAL_MARKS[credentialLabel(credential)]}
              </span>
              {note && (
                <span aria-hidden="true" className="chip-note">
                  {note}
                </span>
              )}
              <span className="visually-hidden">{name}</span>
              {canChange && canDeleteCredential(account, credential) && (
                <button
                  ref={(button) => {
                    if (button) deleteButtons.current.set(credential.id, button);
                    else deleteButtons.current.delete(credential.id);
                  }}
                  type="button"
                  className="icon-button chip-delete"
                  aria-label={t('admin.credential.delete_named', { credential: name })}
                  title={t('admin.credential.delete_named', { credential: name })}
                  aria-haspopup="dialog"
                  disabled={busy}
                  aria-busy={busy || undefined}
                  onClick={() => askDelete(credential, name)}
                >
                  {busy ? <span className="spinner" aria-hidden="true" /> : '×'}
                </button>
              )}
            </li>
          );
        })}
      </ul>
      {confirmModal}
    </>
  );
}
