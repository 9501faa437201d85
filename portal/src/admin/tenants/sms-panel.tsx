import { useId, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { addSmsCredits, setSmsSetting, type SettingEntry, type TenantDetail } from '../../api/admin.ts';
import { Button } from '../../components/button.tsx';
import { useFocusBack } from '../../components/use-focus-back.ts';
import { useAdminErrorHandler } from '../admin-auth.ts';
import { useConfirm } from '../confirm-modal.tsx';
import { useCanChange } from '../operator.tsx';
import { useToast } from '../toast.tsx';
import { failureText } from '../failure-text.ts';
import { formatUtc } from '../utc-time.ts';
import { SmsEditForm } from './sms-edit-form.tsx';
import { deriveSmsSettings, parseCreditsToAdd, SMS_STATUS_KEYS, smsEnabledSetting, smsPausedSetting, smsStatus, withSetting } from './sms-settings.ts';

/** The switch a confirmed change is posting: Enable/Disable (`system_sms`) or Pause/Resume (`info`). */
type SmsSwitch = 'enabled' | 'paused';

/**
 * A tenant's SMS settings. Enabling/disabling and pausing/unpausing each ask for confirmation
 * first, then post the one setting that changes (`system_sms` or `info`). The panel keeps its own
 * copy of the SMS settings; `onSaved` tells the row so its raw settings stay in step.
 */
export function SmsPanel({ tenant, onSaved }: { tenant: TenantDetail; onSaved: (entry: SettingEntry) => void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const handleAdminError = useAdminErrorHandler();
  const [confirmModal, ask] = useConfirm();
  const canChange = useCanChange();
  const [entries, setEntries] = useState<SettingEntry[]>(tenant.sms_settings ?? []);
  const [credits, setCredits] = useState<number | null>(tenant.sms_credits ?? null);
  const [pending, setPending] = useState<SmsSwitch | null>(null);
  const enableButton = useRef<HTMLButtonElement>(null);
  const pauseButton = useRef<HTMLButtonElement>(null);
  // Posting disables the switch (as the confirmation hands the focus back to it), which drops the
  // focus: it comes back to the switch when the post ends, failed or not.
  useFocusBack(pending === 'enabled', enableButton);
  useFocusBack(pending === 'paused', pauseButton);
  const sms = deriveSmsSettings(entries, credits);
  // Pausing posts the whole `info` (sender and thresholds); without one there is nothing to pause.
  const hasInfo = sms.sender !== null;

  /** Posts one SMS setting; the server's answer (key, value) replaces the local one. */
  const post = async (entry: SettingEntry): Promise<boolean> => {
    try {
      const saved = await setSmsSetting(tenant.id, entry);
      const accepted = saved && typeof saved === 'object' && saved.key === entry.key && 'value' in saved ? { key: saved.key, value: saved.value } : entry;
      setEntries((current) => withSetting(current, accepted));
      onSaved(accepted);
      toast('success', t('admin.sms.saved'));
      return true;
    } catch (error) {
      if (!handleAdminError(error, 'action')) toast('error', failureText(t('admin.sms.save_failed'), error, t));
      return false;
    }
  };
  // Both switches stay disabled until the post ends, so a slow server never gets a second change
  // on top of the first: the same switch again, or the other one racing it.
  const confirmThen = (action: SmsSwitch, entry: SettingEntry) => async () => {
    setPending(action);
    try {
      await post(entry);
    } finally {
      setPending(null);
    }
  };

  const yes = (value: boolean) => (value ? t('admin.yes') : t('admin.no'));
  const number = (value: number | null) => (value === null ? t('admin.not_available') : String(value));
  const rows: [string, ReactNode][] = [
    [t('admin.sms.sender'), sms.sender ?? t('admin.not_available')],
    [t('admin.sms.credits'), number(sms.credits)],
    [t('admin.sms.warning_1'), number(sms.warning1)],
    [t('admin.sms.warning_2'), number(sms.warning2)],
    [t('admin.sms.signature'), sms.signature ?? t('admin.not_available')],
    [t('admin.sms.warned'), yes(sms.warned)],
    [t('admin.sms.deactivates_at'), formatUtc(sms.deactivatesAt) ?? t('admin.not_available')],
    [t('admin.sms.enabled'), yes(sms.enabled)],
    [t('admin.sms.paused'), yes(sms.paused)],
    [t('admin.sms.waiting_for_signature'), yes(sms.waitingForSignature)],
  ];

  const status = smsStatus(sms);

  return (
    <div className="sms-panel">
      <p>
        <span className={`badge sms-${status}`}>{t(SMS_STATUS_KEYS[status])}</span>
      </p>
      <dl className="facts">
        {rows.map(([term, value]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {canChange && (
        <>
          {renderActions()}
          <AddCredits tenantId={tenant.id} onAdded={setCredits} />
          <details className="sms-edit-toggle">
            <summary>{t('admin.sms.edit')}</summary>
            <SmsEditForm entries={entries} sms={sms} save={post} />
          </details>
        </>
      )}
      {confirmModal}
    </div>
  );

  /** A plain render helper (not a component), so the buttons keep focus across renders. */
  function renderActions() {
    return (
      <div className="actions">
        {sms.enabled ? (
          <Button
            ref={enableButton}
            type="button"
            variant="secondary"
            loading={pending === 'enabled'}
            disabled={pending !== null}
            onClick={() =>
              ask({
                title: t('admin.sms.disable'),
                content: t('admin.sms.disable_confirm', { name: tenant.name }),
                warning: true,
                confirmLabel: t('admin.sms.disable'),
                onConfirm: confirmThen('enabled', smsEnabledSetting(false)),
              })
            }
          >
            {t('admin.sms.disable')}
          </Button>
        ) : (
          <Button
            ref={enableButton}
            type="button"
            loading={pending === 'enabled'}
            disabled={pending !== null}
            onClick={() =>
              ask({
                title: t('admin.sms.enable'),
                content: t('admin.sms.enable_confirm', { name: tenant.name }),
                confirmLabel: t('admin.sms.enable'),
                onConfirm: confirmThen('enabled', smsEnabledSetting(true)),
              })
            }
          >
            {t('admin.sms.enable')}
          </Button>
        )}
        {sms.enabled && hasInfo && (
          <Button
            ref={pauseButton}
            type="button"
            variant="secondary"
            loading={pending === 'paused'}
            disabled={pending !== null}
            onClick={() =>
              ask(
                sms.paused
                  ? {
                      title: t('admin.sms.unpause'),
                      content: t('admin.sms.unpause_confirm', { name: tenant.name }),
                      confirmLabel: t('admin.sms.unpause'),
                      onConfirm: confirmThen('paused', smsPausedSetting(entries, false)),
                    }
                  : {
                      title: t('admin.sms.pause'),
                      content: t('admin.sms.pause_confirm', { name: tenant.name }),
                      warning: true,
                      confirmLabel: t('admin.sms.pause'),
                      onConfirm: confirmThen('paused', smsPausedSetting(entries, true)),
                    },
              )
            }
          >
            {sms.paused ? t('admin.sms.unpause') : t('admin.sms.pause')}
          </Button>
        )}
        {sms.enabled && !hasInfo && <p className="muted">{t('admin.sms.pause_needs_info')}</p>}
      </div>
    );
  }
}

function AddCredits({ tenantId, onAdded }: { tenantId: string; onAdded: (credits: number) => void }) {
  const { t } = useTranslation();
  const id = useId();
  const toast = useToast();
  const handleAdminError = useAdminErrorHandler();
  const [input, setInput] = useState('');
  const [busy, setBusy] = useState(false);
  const creditsField = useRef<HTMLInputElement>(null);
  const addButton = useRef<HTMLButtonElement>(null);
  // Adding disables Add, which drops the focus: it comes back to Add after a failure, to the
  // emptied field after the credits are added (Add is disabled until a new number is typed).
  useFocusBack(busy, input === '' ? creditsField : addButton);
  const credits = parseCreditsToAdd(input);
  const invalid = input.trim() !== '' && credits === null;

  return (
    <form
      className="inline-form"
      onSubmit={async (event) => {
        event.preventDefault();
        if (credits === null) return;
        setBusy(true);
        try {
          const answer = await addSmsCredits(tenantId, credits);
          if (typeof answer?.credits === 'number') onAdded(answer.credits);
          setInput('');
          toast('success', t('admin.sms.credits_added'));
        } catch (error) {
          if (!handleAdminError(error, 'action')) toast('error', failureText(t('admin.sms.credits_failed'), error, t));
        } finally {
          setBusy(false);
        }
      }}
    >
      <div className="field">
        <label htmlFor={`${id}-credits`}>{t('admin.sms.add_credits')}</label>
        <div className="admin-search-row">
          <input
            ref={creditsField}
            id={`${id}-credits`}
            type="text"
            inputMode="numeric"
            autoComplete="off"
            aria-invalid={invalid || undefined}
            aria-describedby={invalid ? `${id}-error` : undefined}
            value={input}
            onChange={(event) => setInput(event.target.value)}
          />
          <Button ref={addButton} variant="secondary" disabled={credits === null} loading={busy}>
            {t('admin.sms.add')}
          </Button>
        </div>
        {invalid && (
          <p className="field-error" id={`${id}-error`}>
            {t('admin.sms.credits_invalid')}
          </p>
        )}
      </div>
    </form>
  );
}
