import { useEffect, useRef } from 'react';

/** Focus on mount for elements React's `autoFocus` ignores (links, headings). */
export function useAutoFocus<T extends HTMLElement>(enabled = true) {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (enabled) ref.current?.focus();
  }, [enabled]);
  return ref;
}
