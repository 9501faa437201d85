import { useEffect, useRef } from 'react';

/** Focus on mount for elements React's `autoFocus` ignores (links, headings). */
export function useAutoFocus<T extends HTMLElement>(enabled = true) {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (enabled) ref.current?.focus();
  }, [enabled]);
  return ref;
}

/**
 * Focus each time `count` goes up, from 1 on: after a failed submit, whose pending state disabled
 * the control that had focus (a disabled control loses it to the page), so keyboard and screen
 * reader users carry on from the form rather than from the top of the page.
 */
export function useFocusOnEach<T extends HTMLElement>(count: number) {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (count > 0) ref.current?.focus();
  }, [count]);
  return ref;
}
