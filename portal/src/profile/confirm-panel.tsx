import { useId } from 'react';
import { Button } from '../components/button.tsx';
import { useAutoFocus } from '../components/use-auto-focus.ts';

interface ConfirmPanelProps {
  title: string;
  body: string;
  confirmLabel: string;
  keepLabel: string;
  pending: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

/**
 * The inline "are you sure" of a switch that removes a way to sign in: focus lands on the
 * confirming button, Escape keeps things as they are (not while the removal is under way).
 */
export function ConfirmPanel({ title, body, confirmLabel, keepLabel, pending, onConfirm, onCancel }: ConfirmPanelProps) {
  const id = useId();
  const confirmRef = useAutoFocus<HTMLButtonElement>();
  return (
    <div
      className="confirm-panel"
      role="group"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-body`}
      onKeyDown={(event) => {
        if (event.key === 'Escape' && !pending) onCancel();
      }}
    >
      <p className="confirm-title" id={`${id}-title`}>
        {title}
      </p>
      <p id={`${id}-body`}>{body}</p>
      <div className="profile-actions">
        <Button ref={confirmRef} type="button" className="btn-danger" loading={pending} onClick={onConfirm}>
          {confirmLabel}
        </Button>
        <Button type="button" variant="secondary" disabled={pending} onClick={onCancel}>
          {keepLabel}
        </Button>
      </div>
    </div>
  );
}
