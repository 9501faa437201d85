import { useEffect, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { requestAccountEmailChange, type AdminAccount } from '../../api/admin.ts';
import { ErrorAlert, Notice } from '../../components/alert.tsx';
import { Button } from '../../components/button.tsx';
import { useAdminErrorHandler } from '../admin-auth.ts';
import { failureText } from '../failure-text.ts';
import { Modal } from '../modal.tsx';
import { refusalKey } from './email-change-refusals.ts';

/**
 * "Change email": the new address gets a link, and the account changes only when it is confirmed
 * there (the server's email-change.service.ts). Busy while the call runs; a refusal stays in the
 * dialog with the address kept, so a typo is fixed in place (an operator's account is refused:
 * the role goes first). A sign-in too old for the change (operator/reauthentication-required)
 * goes to the console's sign-in notice, as a credential deletion does.
 */
export function EmailChangeModal({ account, open, onClose }: { account: AdminAccount; open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const id = useId();
  const handleAdminError = useAdminErrorHandler();
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [sentTo, setSentTo] = useState<string | null>(null);

  useEffect(() => {
    if (open) {
      setEmail('');
      setError(null);
      setSentTo(null);
    }
  }, [open]);

  const submit = async () => {
    const wanted = email.trim();
    setBusy(true);
    setError(null);
    try {
      await requestAccountEmailChange(account.id, wanted);
      setSentTo(wanted.toLowerCase());
    } catch (failure) {
      if (handleAdminError(failure, 'action')) return;
      const key = refusalKey(failure);
      setError(key ? t(key) : failureText(t('admin.email_change.failed'), failure, t));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open={open}
      title={t('admin.email_change.title')}
      onClose={() => {
        if (!busy) onClose();
      }}
      footer={
        sentTo ? (
          <Button type="button" onClick={onClose} data-autofocus>
            {t('admin.close')}
          </Button>
        ) : (
          <>
            <Button type="button" variant="secondary" onClick={onClose} disabled={busy}>
              {t('app.cancel')}
            </Button>
            <Button type="submit" form={`${id}-form`} loading={busy} disabled={email.trim() === ''}>
              {t('admin.email_change.submit')}
            </Button>
          </>
        )
      }
    >
      {sentTo ? (
        <Notice message={t('admin.email_change.sent', { email: sentTo })} />
      ) : (
        <form
          id={`${id}-form`}
          className="form"
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            if (email.trim() !== '' && !busy) void submit();
          }}
        >
          <p>{t('admin.email_change.explain', { email: account.email })}</p>
          <div className="field">
            <label htmlFor={`${id}-email`}>{t('admin.email_change.new_email')}</label>
            <input
              id={`${id}-email`}
              type="email"
              autoComplete="off"
              value={email}
              disabled={busy}
              aria-invalid={error !== null || undefined}
              aria-describedby={error ? `${id}-error` : undefined}
              onChange={(event) => setEmail(event.target.value)}
              data-autofocus
            />
          </div>
          <ErrorAlert id={`${id}-error`} message={error} />
        </form>
      )}
    </Modal>
  );
}
