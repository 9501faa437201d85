import { useEffect, useRef, type RefObject } from 'react';

/** The focus fell to the page: the element that had it went away or was disabled. */
export function focusIsLost(): boolean {
  return document.activeElement === null || document.activeElement === document.body;
}

/**
 * A button that a call disables (or whose modal gives the focus back to it just as the call
 * disables it) drops the focus to the page: once the call ends the focus returns to the button,
 * unless the operator has moved it meanwhile.
 */
export function useFocusBack(busy: boolean, target: RefObject<HTMLElement | null>): void {
  const wasBusy = useRef(false);
  useEffect(() => {
    if (wasBusy.current && !busy && focusIsLost()) target.current?.focus();
    wasBusy.current = busy;
  }, [busy, target]);
}
