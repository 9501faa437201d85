import { useEffect } from 'react';
import { interactionStatus, resumeHref } from './interaction-check.ts';

/**
 * While /login shows its form for an application's request (`uid`): each time the page is shown
 * again (visible after hidden, or focused after blur) it asks once whether the browser's Nyckel
 * session now answers that request, as after a sign-in in another tab of the same application
 * (tabs restored together, each at /login), and if so goes to finish it. No timer: a page nobody
 * looks at asks nothing, and visibilitychange and focus of one return make a single call.
 *
 * It never goes while a call of the login flow is in flight (the person pressed Continue or Sign
 * in just before): that call's own answer navigates, and two navigations would race. The status
 * is asked without client_id: only `resumable` is used here, so an ended request costs no client
 * lookup from the per-IP sign-in budget; the next step of the form says it ended, as before.
 */
export function useResumeWhenShown(uid: string | null): void {
  useEffect(() => {
    if (!uid) return;
    // Checked for this showing already: the load's own check counts for a page loaded in front.
    let asked = document.visibilityState === 'visible' && document.hasFocus();
    let asking = false;
    // A return while the last one's check is still out: asked once that answers, since the
    // sign-in in another tab may have finished after that check left.
    let askAgain = false;
    let done = false;
    const ask = () => {
      if (done || loginCallInFlight()) return;
      asking = true;
      interactionStatus(uid, null)
        .then(
          (status) => {
            if (done || status.state !== 'active' || status.resumable !== true || loginCallInFlight()) return;
            done = true;
            window.location.assign(resumeHref(uid));
          },
          (failure: unknown) => console.warn('could not check the sign-in request', failure),
        )
        .finally(() => {
          asking = false;
          const again = askAgain;
          askAgain = false;
          if (again && !done && document.visibilityState === 'visible') ask();
        });
    };
    const check = () => {
      if (done || asked || document.visibilityState !== 'visible' || loginCallInFlight()) return;
      asked = true;
      if (asking) askAgain = true;
      else ask();
    };
    const left = () => {
      asked = false;
    };
    const onVisibility = () => (document.visibilityState === 'visible' ? check() : left());
    document.addEventListener('visibilitychange', onVisibility);
    window.addEventListener('focus', check);
    window.addEventListener('blur', left);
    return () => {
      done = true;
      document.removeEventListener('visibilitychange', onVisibility);
      window.removeEventListener('focus', check);
      window.removeEventListener('blur', left);
    };
  }, [uid]);
}

/**
 * The login flow's state lives below this page's hook (login-page.tsx), so it is read where the
 * flow shows it: every login call marks its button busy while it runs (Button's aria-busy).
 */
function loginCallInFlight(): boolean {
  return document.querySelector('[aria-busy="true"]') !== null;
}
