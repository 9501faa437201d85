import { useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { requestAccountEmailChange, withdrawAccountEmailChange, type AdminAccount } from '../../api/admin.ts';
import { isApiError } from '../../api/client.ts';
import { ErrorAlert, Notice } from '../../components/alert.tsx';
import { Button } from '../../components/button.tsx';
import { focusIsLost, useFocusBack } from '../../components/use-focus-back.ts';
import { useAdminErrorHandler } from '../admin-auth.ts';
import { failureText } from '../failure-text.ts';
import { Modal } from '../modal.tsx';
import { formatUtc } from '../utc-time.ts';
import { pendingChange } from './account-view.ts';
import { ALREADY_MADE, NONE_PENDING, refusalKey } from './email-change-refusals.ts';
import { getPendingEmailChange } from './pending-email-change-api.ts';

/** A failure, and which call it was: only the request's is about the address typed. */
interface Failure {
  text: string;
  of: 'request' | 'withdrawal';
}

/**
 * "Change email": the new address gets a link, and the account changes only when it is confirmed
 * there (the server's email-change.service.ts). Busy while the call runs; a refusal stays in the
 * dialog with the address kept, so a typo is fixed in place (an operator's account is refused:
 * the role goes first). A sign-in too old for the change (operator/reauthentication-required)
 * goes to the console's sign-in notice, as a credential deletion does.
 *
 * A pending change is withdrawn from here too (its link stops working): at once from the sent
 * view, for the operator who spots a typo, or from the form for one asked earlier, which the form
 * names with the end of its link. Withdraw is offered only then (there was nothing to withdraw
 * otherwise). The dialog then says what was withdrawn, or that nothing was waiting (the link was
 * confirmed or ran out meanwhile). The row learns of each: the change sent, read back from the
 * server with its link's end, or gone.
 */
export function EmailChangeModal({
  account,
  open,
  onChange,
  onClose,
}: {
  account: AdminAccount;
  open: boolean;
  onChange: (account: AdminAccount) => void;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const id = useId();
  const handleAdminError = useAdminErrorHandler();
  const [email, setEmail] = useState('');
  const [sending, setSending] = useState(false);
  const [withdrawing, setWithdrawing] = useState(false);
  const [error, setError] = useState<Failure | null>(null);
  const [sentTo, setSentTo] = useState<string | null>(null);
  /** What the withdrawal answered; the dialog's last view. */
  const [ended, setEnded] = useState<string | null>(null);
  const withdrawButton = useRef<HTMLButtonElement>(null);
  const closeButton = useRef<HTMLButtonElement>(null);
  const emailField = useRef<HTMLInputElement>(null);
  const busy = sending || withdrawing;
  const pending = pendingChange(account, new Date());
  // Withdraw is disabled while its call runs, which drops the focus: it comes back when the call
  // failed; when the view changed instead (sent, or ended), Close takes it, as data-autofocus
  // would have on opening.
  useFocusBack(withdrawing, withdrawButton);
  // The field is disabled while the request is sent: a refusal gives it the focus back, so the
  // address is corrected where it was typed (a sent request unmounts it, and Close takes over).
  useFocusBack(sending, emailField);
  useEffect(() => {
    if (focusIsLost()) closeButton.current?.focus();
  }, [sentTo, ended]);

  useEffect(() => {
    if (open) {
      setEmail('');
      setError(null);
      setSentTo(null);
      setEnded(null);
    }
  }, [open]);

  const submit = async () => {
    const wanted = email.trim();
    setSending(true);
    setError(null);
    try {
      await requestAccountEmailChange(account.id, wanted);
      setSentTo(wanted.toLowerCase());
      // The row shows the change it replaced until told otherwise: read back what now waits. Not
      // knowing (a failed read) leaves the row as it was; the next search shows it.
      getPendingEmailChange(account.id).then(
        (now) => onChange({ ...account, pending_email_change: now }),
        () => undefined,
      );
    } catch (failure) {
      if (handleAdminError(failure, 'action')) return;
      const key = refusalKey(failure);
      setError({ text: key ? t(key) : failureText(t('admin.email_change.failed'), failure, t), of: 'request' });
    } finally {
      setSending(false);
    }
  };

  const withdraw = async () => {
    setWithdrawing(true);
    setError(null);
    try {
      const withdrawn = await withdrawAccountEmailChange(account.id);
      setEnded(t('admin.email_change.withdrawn', { email: withdrawn.email }));
      onChange({ ...account, pending_email_change: null });
    } catch (failure) {
      if (handleAdminError(failure, 'action')) return;
      // Nothing to withdraw (confirmed, expired, or ended meanwhile): an answer, not a failure.
      if (isApiError(failure) && failure.type === NONE_PENDING) {
        setEnded(t('admin.email_change.none_pending'));
        onChange({ ...account, pending_email_change: null });
      } else if (isApiError(failure) && failure.type === ALREADY_MADE && (sentTo ?? pending)) {
        // Made, and finished by this call: the address the dialog offered to withdraw is the account's now.
        const made = sentTo ?? pending!.email;
        setEnded(t('admin.email_change.already_made', { email: made }));
        onChange({ ...account, email: made, pending_email_change: null });
      } else setError({ text: failureText(t('admin.email_change.withdraw_failed'), failure, t), of: 'withdrawal' });
    } finally {
      setWithdrawing(false);
    }
  };

  const close = (
    <Button ref={closeButton} type="button" onClick={onClose} disabled={busy} data-autofocus>
      {t('admin.close')}
    </Button>
  );
  const requestError = error?.of === 'request' ? error.text : null;

  return (
    <Modal
      open={open}
      title={t('admin.email_change.title')}
      onClose={() => {
        if (!busy) onClose();
      }}
      footer={
        ended ? (
          close
        ) : sentTo ? (
          <>
            <Button ref={withdrawButton} type="button" variant="secondary" loading={withdrawing} onClick={() => void withdraw()} aria-describedby={`${id}-sent`}>
              {t('admin.email_change.withdraw_short')}
            </Button>
            {close}
          </>
        ) : (
          <>
            {pending && (
              <Button ref={withdrawButton} type="button" variant="secondary" loading={withdrawing} disabled={sending} onClick={() => void withdraw()} aria-describedby={`${id}-pending`}>
                {t('admin.email_change.withdraw')}
              </Button>
            )}
            <div className="modal-foot-group">
              <Button type="button" variant="secondary" onClick={onClose} disabled={busy}>
                {t('app.cancel')}
              </Button>
              <Button type="submit" form={`${id}-form`} loading={sending} disabled={email.trim() === '' || withdrawing}>
                {t('admin.email_change.submit')}
              </Button>
            </div>
          </>
        )
      }
    >
      {ended ? (
        <Notice message={ended} />
      ) : sentTo ? (
        <>
          <Notice id={`${id}-sent`} message={t('admin.email_change.sent', { email: sentTo })} />
          <ErrorAlert message={error?.text ?? null} />
        </>
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
          {pending && <Notice id={`${id}-pending`} message={t('admin.email_change.pending_explain', { email: pending.email, time: formatUtc(pending.expires_at) })} />}
          <div className="field">
            <label htmlFor={`${id}-email`}>{t('admin.email_change.new_email')}</label>
            <input
              ref={emailField}
              id={`${id}-email`}
              type="email"
              autoComplete="off"
              value={email}
              disabled={busy}
              aria-invalid={requestError !== null || undefined}
              aria-describedby={requestError ? `${id}-error` : undefined}
              onChange={(event) => setEmail(event.target.value)}
              data-autofocus
            />
          </div>
          <ErrorAlert id={`${id}-error`} message={error?.text ?? null} />
        </form>
      )}
    </Modal>
  );
}
