import type { ComponentProps } from 'react';

interface ButtonProps extends ComponentProps<'button'> {
  /** While true the button is disabled and shows a spinner; its accessible name stays the same. */
  loading?: boolean;
  variant?: 'primary' | 'secondary' | 'link';
}

export function Button({ loading = false, variant = 'primary', disabled, className, children, type, ...rest }: ButtonProps) {
  return (
    <button
      {...rest}
      type={type ?? 'submit'}
      className={['btn', `btn-${variant}`, className].filter(Boolean).join(' ')}
      disabled={disabled || loading}
      aria-busy={loading || undefined}
    >
      {loading && <span className="spinner" aria-hidden="true" />}
      {children}
    </button>
  );
}
