import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export type ToastKind = 'success' | 'error';

interface Toast {
  id: number;
  kind: ToastKind;
  text: string;
}

type ShowToast = (kind: ToastKind, text: string) => void;

const ToastContext = createContext<ShowToast>(() => undefined);

/** How long a message stays; errors stay until dismissed or replaced. */
const SUCCESS_MS = 6000;

/** Success and failure messages of console actions, announced politely (errors assertively). */
export function useToast(): ShowToast {
  return useContext(ToastContext);
}

export function ToastProvider({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const [toasts, setToasts] = useState<Toast[]>([]);
  const next = useRef(0);

  const dismiss = useCallback((id: number) => setToasts((all) => all.filter((toast) => toast.id !== id)), []);
  const show = useCallback<ShowToast>((kind, text) => {
    next.current += 1;
    const toast = { id: next.current, kind, text };
    // The newest three are enough; an older identical message gives way to the new one.
    setToasts((all) => [...all.filter((item) => item.text !== text).slice(-2), toast]);
  }, []);

  return (
    <ToastContext value={show}>
      {children}
      {/* The region exists before any message, so screen readers announce what is added to it. */}
      <div className="admin-toasts" aria-live="polite">
        {toasts.map((toast) => (
          <ToastItem key={toast.id} toast={toast} onDismiss={dismiss} closeLabel={t('admin.dismiss')} />
        ))}
      </div>
    </ToastContext>
  );
}

function ToastItem({ toast, onDismiss, closeLabel }: { toast: Toast; onDismiss: (id: number) => void; closeLabel: string }) {
  useEffect(() => {
    if (toast.kind !== 'success') return;
    const timer = setTimeout(() => onDismiss(toast.id), SUCCESS_MS);
    return () => clearTimeout(timer);
  }, [toast, onDismiss]);
  return (
    <div className={`admin-toast alert ${toast.kind === 'error' ? 'alert-error' : 'alert-success'}`} role={toast.kind === 'error' ? 'alert' : 'status'}>
      <span>{toast.text}</span>
      <button type="button" className="icon-button" aria-label={closeLabel} onClick={() => onDismiss(toast.id)}>
        ×
      </button>
    </div>
  );
}
