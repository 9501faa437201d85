import { useCallback, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../components/button.tsx';
import { Modal } from './modal.tsx';
import { HIDDEN_MODAL, hideModal, showModal, type ModalState } from './modal-state.ts';

interface ConfirmRequest {
  title: string;
  content: string;
  warning?: boolean;
  confirmLabel: string;
  /** Runs on Confirm, after the modal hid; it reports its own success or failure. */
  onConfirm: () => Promise<void>;
}

/**
 * A confirmation step before a change (deleting a credential, enabling or pausing SMS).
 * Returns the modal element to render and `ask` to show it.
 */
export function useConfirm(): [ReactNode, (request: ConfirmRequest) => void] {
  const { t } = useTranslation();
  const [state, setState] = useState<ModalState>(HIDDEN_MODAL);
  const [confirmLabel, setConfirmLabel] = useState('');
  const pending = useRef<ConfirmRequest | null>(null);

  const ask = useCallback((request: ConfirmRequest) => {
    pending.current = request;
    setConfirmLabel(request.confirmLabel);
    setState(showModal(request.title, request.content, request.warning ?? false));
  }, []);

  const close = () => {
    pending.current = null;
    setState(hideModal());
  };

  /**
   * The modal hides first, then the change runs: its success or failure message appears on the
   * page, which is inert (and unheard by screen readers) while a modal is open.
   */
  const confirm = () => {
    const request = pending.current;
    pending.current = null;
    setState(hideModal());
    if (request) void request.onConfirm();
  };

  const element = (
    <Modal
      open={state.modal}
      title={state.modalTitle}
      warning={state.warning}
      onClose={close}
      footer={
        <>
          {/* A risky change starts on Cancel: Enter alone must not make it. */}
          <Button type="button" variant="secondary" onClick={close} data-autofocus={state.warning || undefined}>
            {t('app.cancel')}
          </Button>
          <Button type="button" className={state.warning ? 'btn-danger' : undefined} onClick={confirm} data-autofocus={!state.warning || undefined}>
            {confirmLabel}
          </Button>
        </>
      }
    >
      <p>{state.modalContent}</p>
    </Modal>
  );
  return [element, ask];
}
