import { useEffect, useId, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

interface ModalProps {
  open: boolean;
  title: string;
  /** Styles the modal as a warning (destructive or risky action). */
  warning?: boolean;
  onClose: () => void;
  children?: ReactNode;
  /** Action buttons under the content. */
  footer?: ReactNode;
  wide?: boolean;
}

/**
 * The console's one modal, on the native <dialog>: showModal() makes the rest of the page inert,
 * keeps focus inside, and Escape closes it. Focus goes to the element marked `data-autofocus` (else
 * the first focusable one) and returns to the opener when it closes.
 */
export function Modal({ open, title, warning = false, onClose, children, footer, wide = false }: ModalProps) {
  const { t } = useTranslation();
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const opener = useRef<Element | null>(null);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      opener.current = document.activeElement;
      dialog.showModal();
      // React's autoFocus runs before the dialog is shown; `data-autofocus` marks the element instead.
      dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    } else if (!open && dialog.open) {
      dialog.close();
    }
    if (!open && opener.current instanceof HTMLElement) {
      opener.current.focus();
      opener.current = null;
    }
  }, [open]);

  const classes = ['modal', warning ? 'modal-warning' : '', wide ? 'modal-wide' : ''].filter(Boolean).join(' ');
  return (
    <dialog
      ref={ref}
      className={classes}
      aria-labelledby={titleId}
      onCancel={(event) => {
        // Escape: the owner decides (it may be busy); the dialog closes when `open` turns false.
        event.preventDefault();
        onClose();
      }}
      onClose={() => {
        // The close event is queued: one from an earlier close can arrive after the modal was
        // opened again (input outranks it in the browser's queue), and must not close that one.
        if (open && !ref.current?.open) onClose();
      }}
      onClick={(event) => {
        // A click on the backdrop (the dialog element itself, outside its box) closes it.
        if (event.target === ref.current) onClose();
      }}
    >
      {open && (
        <div className="modal-box">
          <header className="modal-head">
            <h2 id={titleId}>
              {warning && (
                <span className="modal-warning-mark" aria-hidden="true">
                  ⚠{' '}
                </span>
              )}
              {title}
            </h2>
            <button type="button" className="icon-button" aria-label={t('admin.close')} onClick={onClose}>
              ×
            </button>
          </header>
          <div className="modal-body">{children}</div>
          {footer && <footer className="modal-foot">{footer}</footer>}
        </div>
      )}
    </dialog>
  );
}
