import { useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { SettingEntry } from '../../api/admin.ts';
import { Button } from '../../components/button.tsx';
import { useFocusBack } from '../../components/use-focus-back.ts';
import { smsInfoDraft, smsInfoSetting, smsSignatureSetting, type SmsInfoProblem, type SmsSettings } from './sms-settings.ts';

interface SmsEditFormProps {
  entries: SettingEntry[];
  sms: SmsSettings;
  /** Posts one setting; answers whether the server took it. */
  save: (entry: SettingEntry) => Promise<boolean>;
}

const PROBLEM_KEYS: Record<SmsInfoProblem, string> = {
  sender: 'admin.sms.sender_invalid',
  warning_1: 'admin.sms.warning_invalid',
  warning_2: 'admin.sms.warning_invalid',
};

/** Sender, the two low-credit warnings and the signature. Posting `info` updates the sender. */
export function SmsEditForm({ entries, sms, save }: SmsEditFormProps) {
  const { t } = useTranslation();
  const id = useId();
  const [draft, setDraft] = useState(() => smsInfoDraft(sms));
  const [signature, setSignature] = useState(sms.signature ?? '');
  const [busy, setBusy] = useState(false);
  const [touched, setTouched] = useState(false);
  const saveButton = useRef<HTMLButtonElement>(null);
  // Saving disables Save, which drops the focus: it comes back to Save when the save ends.
  useFocusBack(busy, saveButton);
  const result = smsInfoSetting(entries, draft);
  const problems = 'problems' in result ? result.problems : [];
  const signatureEntry = smsSignatureSetting(signature);
  const signatureChanged = signature.trim() !== (sms.signature ?? '');
  const signatureInvalid = signatureChanged && signatureEntry === null;

  const field = (name: SmsInfoProblem, label: string, value: string, onChange: (value: string) => void, numeric: boolean) => {
    const invalid = touched && problems.includes(name);
    return (
      <div className="field">
        <label htmlFor={`${id}-${name}`}>{label}</label>
        <input
          id={`${id}-${name}`}
          type="text"
          inputMode={numeric ? 'numeric' : undefined}
          autoComplete="off"
          aria-invalid={invalid || undefined}
          aria-describedby={invalid ? `${id}-${name}-error` : undefined}
          value={value}
          onChange={(event) => onChange(event.target.value)}
        />
        {invalid && (
          <p className="field-error" id={`${id}-${name}-error`}>
            {t(PROBLEM_KEYS[name])}
          </p>
        )}
      </div>
    );
  };

  return (
    <form
      className="form sms-edit"
      noValidate
      onSubmit={async (event) => {
        event.preventDefault();
        setTouched(true);
        if (!('entry' in result) || signatureInvalid) return;
        setBusy(true);
        const saved = await save(result.entry);
        if (saved && signatureChanged && signatureEntry) await save(signatureEntry);
        setBusy(false);
      }}
    >
      {field('sender', t('admin.sms.sender'), draft.sender, (sender) => setDraft({ ...draft, sender }), false)}
      {field('warning_1', t('admin.sms.warning_1'), draft.warning1, (warning1) => setDraft({ ...draft, warning1 }), true)}
      {field('warning_2', t('admin.sms.warning_2'), draft.warning2, (warning2) => setDraft({ ...draft, warning2 }), true)}
      <div className="field">
        <label htmlFor={`${id}-signature`}>{t('admin.sms.signature')}</label>
        <input
          id={`${id}-signature`}
          type="text"
          autoComplete="off"
          maxLength={100}
          aria-invalid={signatureInvalid || undefined}
          aria-describedby={`${id}-signature-hint`}
          value={signature}
          onChange={(event) => setSignature(event.target.value)}
        />
        <p className={signatureInvalid ? 'field-error' : 'muted'} id={`${id}-signature-hint`}>
          {t('admin.sms.signature_hint')}
        </p>
      </div>
      <div className="actions">
        <Button ref={saveButton} loading={busy}>{t('admin.sms.save')}</Button>
      </div>
    </form>
  );
}
