/** The modal's state (spec section 3): shown with a title, content and warning flag; hiding clears them. */
export interface ModalState {
  modal: boolean;
  modalTitle: string;
  modalContent: string;
  /** A destructive or risky action: styled as a warning, the confirm button in the danger colour. */
  warning: boolean;
}

export const HIDDEN_MODAL: ModalState = Object.freeze({ modal: false, modalTitle: '', modalContent: '', warning: false });

export function showModal(modalTitle: string, modalContent: string, warning = false): ModalState {
  return { modal: true, modalTitle, modalContent, warning };
}

export function hideModal(): ModalState {
  return HIDDEN_MODAL;
}
