import { useId, type Ref } from 'react';
import { useTranslation } from 'react-i18next';
import { checkPasswordRules, PASSWORD_RULE_KEYS } from '../login/password-rules.ts';

interface PasswordFieldsProps {
  password: string;
  repeat: string;
  onPasswordChange: (value: string) => void;
  onRepeatChange: (value: string) => void;
  onPasswordBlur?: () => void;
  disabled?: boolean;
  autoFocus?: boolean;
  /** The new-password field, for a page that moves focus to it (after the server refused the password). */
  passwordRef?: Ref<HTMLInputElement>;
  /** An extra message under the fields (e.g. the set-password page's checks). */
  problem?: string | null;
}

/** New password + repeat, with each rule ticked off as it is met. */
export function PasswordFields(props: PasswordFieldsProps) {
  const { password, repeat, onPasswordChange, onRepeatChange, onPasswordBlur, disabled, autoFocus, passwordRef, problem } = props;
  const { t } = useTranslation();
  const id = useId();
  const rulesId = `${id}-rules`;
  const problemId = `${id}-problem`;
  const mismatch = repeat !== '' && repeat !== password;
  const message = problem ?? (mismatch ? t('password.mismatch') : null);
  return (
    <>
      <div className="field">
        <label htmlFor={`${id}-new`}>{t('password.new')}</label>
        <input
          id={`${id}-new`}
          ref={passwordRef}
          type="password"
          autoComplete="new-password"
          autoFocus={autoFocus}
          disabled={disabled}
          aria-describedby={rulesId}
          value={password}
          onChange={(event) => onPasswordChange(event.target.value)}
          onBlur={onPasswordBlur}
        />
      </div>
      <div className="rules" id={rulesId}>
        <p className="rules-title">{t('password.rules_title')}</p>
        <ul>
          {checkPasswordRules(password).map(({ rule, met }) => (
            <li key={rule} className={met ? 'rule met' : 'rule'}>
              <span className="rule-mark" aria-hidden="true">
                {met ? '✓' : '○'}
              </span>
              {t(PASSWORD_RULE_KEYS[rule])}
              <span className="visually-hidden"> ({met ? t('password.met') : t('password.not_met')})</span>
            </li>
          ))}
        </ul>
      </div>
      <div className="field">
        <label htmlFor={`${id}-repeat`}>{t('password.repeat')}</label>
        <input
          id={`${id}-repeat`}
          type="password"
          autoComplete="new-password"
          disabled={disabled}
          aria-invalid={mismatch || undefined}
          aria-describedby={message ? problemId : undefined}
          value={repeat}
          onChange={(event) => onRepeatChange(event.target.value)}
        />
      </div>
      {message && (
        <p className="field-error" id={problemId} aria-live="polite">
          {message}
        </p>
      )}
    </>
  );
}
