import { createContext, useCallback, useContext, useEffect, useId, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { isApiError } from '../../api/client.ts';
import { ErrorAlert } from '../../components/alert.tsx';
import { Button } from '../../components/button.tsx';
import { useAdminErrorHandler } from '../admin-auth.ts';
import { failureText } from '../failure-text.ts';
import { Modal } from '../modal.tsx';
import { useCanChange } from '../operator.tsx';
import { impersonationErrorKey, REASON_MAX, reasonProblem, startImpersonation, type ImpersonationTarget } from './impersonation-api.ts';

type Impersonate = (target: ImpersonationTarget) => void;

const ImpersonateContext = createContext<Impersonate | null>(null);

/**
 * "Log in as user / as tenant admin": asks for the reason, then sends the browser to the one-time
 * hand-off. null when the operator's role may not (support): the console then hides the actions.
 */
export function useImpersonate(): Impersonate | null {
  return useContext(ImpersonateContext);
}

/** Holds the one reason modal of the console; any page asks through useImpersonate(). */
export function ImpersonationProvider({ children }: { children: ReactNode }) {
  const canChange = useCanChange();
  const [target, setTarget] = useState<ImpersonationTarget | null>(null);
  const ask = useCallback<Impersonate>((next) => setTarget(next), []);
  return (
    <ImpersonateContext value={canChange ? ask : null}>
      {children}
      <ReasonModal target={target} onClose={() => setTarget(null)} />
    </ImpersonateContext>
  );
}

function ReasonModal({ target, onClose }: { target: ImpersonationTarget | null; onClose: () => void }) {
  const { t } = useTranslation();
  const id = useId();
  const handleAdminError = useAdminErrorHandler();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [touched, setTouched] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const problem = reasonProblem(reason);

  useEffect(() => {
    setReason('');
    setTouched(false);
    setError(null);
    setBusy(false);
  }, [target]);

  const failure = (cause: unknown): string => {
    const key = isApiError(cause) ? impersonationErrorKey(cause.type) : null;
    return key ? t(key) : failureText(t('impersonation.failed'), cause, t);
  };

  const submit = async () => {
    setTouched(true);
    if (!target || problem || busy) return;
    setBusy(true);
    setError(null);
    try {
      const handOff = await startImpersonation(target, reason);
      // The page leaves for the tenant app: the button stays busy until it has.
      window.location.assign(handOff.url);
    } catch (cause) {
      setBusy(false);
      if (!handleAdminError(cause, 'action')) setError(failure(cause));
    }
  };

  const title = !target
    ? ''
    : target.as === 'admin'
      ? t('impersonation.title_admin', { tenant: target.tenantName })
      : t('impersonation.title_user', { who: target.who ?? '', tenant: target.tenantName });
  const showProblem = touched && problem !== null;
  const formId = `${id}-form`;
  // Once sent, the hand-off is made (and audited) on the server, and the page leaves for it when
  // the answer comes: closing then would only hide a navigation still on its way.
  const close = () => {
    if (!busy) onClose();
  };

  return (
    <Modal
      open={target !== null}
      title={title}
      warning
      onClose={close}
      footer={
        <>
          <Button type="button" variant="secondary" onClick={close} disabled={busy}>
            {t('app.cancel')}
          </Button>
          <Button type="submit" form={formId} loading={busy} disabled={problem !== null}>
            {t('impersonation.submit')}
          </Button>
        </>
      }
    >
      <form
        id={formId}
        className="form impersonation-form"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <p>{t('impersonation.intro')}</p>
        <div className="field">
          <label htmlFor={`${id}-reason`}>{t('impersonation.reason')}</label>
          <textarea
            id={`${id}-reason`}
            rows={3}
            required
            aria-required="true"
            maxLength={REASON_MAX}
            data-autofocus
            aria-invalid={showProblem || undefined}
            aria-describedby={`${id}-hint${showProblem ? ` ${id}-problem` : ''}`}
            value={reason}
            onChange={(event) => {
              setReason(event.target.value);
              setError(null);
            }}
            onKeyDown={(event) => {
              // Enter logs in, as in the rest of the console; Shift+Enter starts a new line.
              if (event.key === 'Enter' && !event.shiftKey) {
                event.preventDefault();
                void submit();
              }
            }}
          />
          <p className="muted" id={`${id}-hint`}>
            {t('impersonation.reason_hint', { max: REASON_MAX, length: reason.trim().length })}
          </p>
          {showProblem && (
            <p className="field-error" id={`${id}-problem`}>
              {t(problem === 'required' ? 'impersonation.reason_required' : 'impersonation.reason_too_long', { max: REASON_MAX })}
            </p>
          )}
        </div>
        <p className="muted">{t('impersonation.audit_note')}</p>
        <ErrorAlert message={error} />
      </form>
    </Modal>
  );
}
