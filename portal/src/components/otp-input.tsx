import { useEffect, useRef, useState, type ClipboardEvent, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';

export const OTP_LENGTH = 6;

interface OtpInputProps {
  disabled?: boolean;
  /** Called with the code whenever it changes. */
  onChange?: (code: string) => void;
  /** Called when a change leaves all six boxes filled with a new code (auto-submit). */
  onComplete: (code: string) => void;
}

const empty = (): string[] => Array.from({ length: OTP_LENGTH }, () => '');

const digitsOf = (text: string): string[] => [...text.replace(/\D/g, '')];

/**
 * Six single-digit boxes: digits only, typing moves to the next box, Backspace on an empty box
 * goes back, arrows move, pasting (or autofilling) several digits fills from the current box.
 * Remount it (change its `key`) to clear it and focus the first box again — at once, or, when it
 * mounts disabled (a new code being sent), as soon as it is enabled.
 */
export function OtpInput({ disabled = false, onChange, onComplete }: OtpInputProps) {
  const { t } = useTranslation();
  const [digits, setDigits] = useState<string[]>(empty);
  const refs = useRef<(HTMLInputElement | null)[]>([]);
  const focusedFirst = useRef(false);

  // Not autoFocus: a disabled box cannot take focus, so boxes mounted while a new code is sent
  // would leave focus on the page and typed digits would go nowhere.
  useEffect(() => {
    if (disabled || focusedFirst.current) return;
    focusedFirst.current = true;
    refs.current[0]?.focus();
  }, [disabled]);

  const focusBox = (index: number) => {
    const box = refs.current[Math.max(0, Math.min(OTP_LENGTH - 1, index))];
    box?.focus();
    box?.select();
  };

  const update = (next: string[], focusIndex: number) => {
    setDigits(next);
    const code = next.join('');
    onChange?.(code);
    focusBox(focusIndex);
    if (code.length === OTP_LENGTH && code !== digits.join('')) onComplete(code);
  };

  /** Writes digits starting at `index`; several digits (paste, autofill) spill into the next boxes. */
  const fill = (index: number, incoming: string[]) => {
    if (incoming.length === 0) return;
    // A full code always fills all boxes, wherever it was pasted.
    const start = incoming.length >= OTP_LENGTH ? 0 : index;
    const next = [...digits];
    incoming.slice(0, OTP_LENGTH - start).forEach((digit, offset) => {
      next[start + offset] = digit;
    });
    update(next, Math.min(start + incoming.length, OTP_LENGTH - 1));
  };

  const handleChange = (index: number, value: string) => {
    const incoming = digitsOf(value);
    if (value === '') {
      const next = [...digits];
      next[index] = '';
      update(next, index);
      return;
    }
    // Typing into a filled box: the browser appends, so keep the newly typed digit.
    if (incoming.length === 2 && digits[index]) {
      fill(index, [incoming[1] ?? '']);
      return;
    }
    fill(index, incoming);
  };

  const handleKeyDown = (index: number, event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Backspace' && !digits[index] && index > 0) {
      event.preventDefault();
      const next = [...digits];
      next[index - 1] = '';
      update(next, index - 1);
    } else if (event.key === 'ArrowLeft') {
      event.preventDefault();
      focusBox(index - 1);
    } else if (event.key === 'ArrowRight') {
      event.preventDefault();
      focusBox(index + 1);
    }
  };

  const handlePaste = (index: number, event: ClipboardEvent<HTMLInputElement>) => {
    event.preventDefault();
    fill(index, digitsOf(event.clipboardData.getData('text')));
  };

  return (
    <div className="otp-boxes">
      {digits.map((digit, index) => (
        <input
          key={index}
          ref={(element) => {
            refs.current[index] = element;
          }}
          className="otp-box"
          type="text"
          inputMode="numeric"
          pattern="[0-9]*"
          autoComplete={index === 0 ? 'one-time-code' : 'off'}
          aria-label={t('login.otp.digit', { n: index + 1 })}
          disabled={disabled}
          value={digit}
          onChange={(event) => handleChange(index, event.target.value)}
          onKeyDown={(event) => handleKeyDown(index, event)}
          onPaste={(event) => handlePaste(index, event)}
          onFocus={(event) => event.target.select()}
        />
      ))}
    </div>
  );
}
