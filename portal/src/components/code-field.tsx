import { useId } from 'react';

export const TOTP_LENGTH = 6;

interface CodeFieldProps {
  label: string;
  value: string;
  onChange: (value: string) => void;
  disabled?: boolean;
}

/** One input for a 6-digit authenticator code; keeps digits only. */
export function CodeField({ label, value, onChange, disabled }: CodeFieldProps) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        className="code-input"
        type="text"
        inputMode="numeric"
        pattern="[0-9]{6}"
        autoComplete="one-time-code"
        maxLength={TOTP_LENGTH}
        autoFocus
        required
        disabled={disabled}
        value={value}
        onChange={(event) => onChange(event.target.value.replace(/\D/g, '').slice(0, TOTP_LENGTH))}
      />
    </div>
  );
}
