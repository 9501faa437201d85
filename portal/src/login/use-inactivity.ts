import { useEffect, useEffectEvent } from 'react';

/** Spec section 4: click, key, mouse move, touch or scroll count as activity. */
export const ACTIVITY_EVENTS = ['click', 'keydown', 'mousemove', 'touchstart', 'scroll'] as const;

/** Calls `onIdle` once after `timeoutMs` without activity; any activity restarts the wait. */
export function useInactivity(timeoutMs: number, onIdle: () => void, enabled = true): void {
  const fireIdle = useEffectEvent(onIdle);

  useEffect(() => {
    if (!enabled) return;
    let timer = window.setTimeout(() => fireIdle(), timeoutMs);
    const restart = () => {
      window.clearTimeout(timer);
      timer = window.setTimeout(() => fireIdle(), timeoutMs);
    };
    for (const type of ACTIVITY_EVENTS) window.addEventListener(type, restart, { passive: true, capture: true });
    return () => {
      window.clearTimeout(timer);
      for (const type of ACTIVITY_EVENTS) window.removeEventListener(type, restart, { capture: true });
    };
  }, [timeoutMs, enabled]);
}
