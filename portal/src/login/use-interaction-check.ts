import { useEffect, useState } from 'react';
import { useLocation } from 'wouter';
import { afterInteractionCheck, interactionStatus, type InteractionStatus } from './interaction-check.ts';
import { useResumeWhenShown } from './interaction-resume.ts';

/** sessionStorage key of when /login last sent this tab to restart a request of the client (ms). */
const restartedKey = (clientId: string) => `interaction_restarted:${clientId}`;

/** A restart that comes back ended within this time is not restarted again. */
const RESTART_PAUSE_MS = 60_000;

/**
 * /login reached with `interaction` in its query (Back after the sign-in finished, a bookmark)
 * asks the server whether that request still waits before showing its form, so nobody types a
 * password into a page that can only answer "ended" (afterInteractionCheck decides what follows),
 * nor into one whose request the browser's Nyckel session already answers (a sign-in in another
 * tab): that goes to finish it. While the form shows, useResumeWhenShown asks the latter again
 * each time the page is shown. Answers whether the page may show its flow; until then it shows
 * that it is loading.
 */
export function useInteractionCheck(search: string): boolean {
  const uid = new URLSearchParams(search).get('interaction');
  const [, navigate] = useLocation();
  const [usable, setUsable] = useState<string | null>(null);
  // Bumped when the browser shows this page again from its back-forward cache (Back): the check
  // ran when the page was first shown, and the request may have ended since.
  const [shown, setShown] = useState(0);

  useEffect(() => {
    const onPageShow = (event: PageTransitionEvent) => {
      if (!event.persisted) return;
      setUsable(null);
      setShown((count) => count + 1);
    };
    window.addEventListener('pageshow', onPageShow);
    return () => window.removeEventListener('pageshow', onPageShow);
  }, []);

  useEffect(() => {
    if (!uid) return;
    let current = true;
    const clientId = new URLSearchParams(search).get('client_id');
    interactionStatus(uid, clientId)
      .catch((failure: unknown): InteractionStatus | null => {
        console.warn('could not check the sign-in request', failure);
        return null;
      })
      .then((status) => {
        if (!current) return;
        const outcome = afterInteractionCheck(status, search, clientId !== null && mayRestart(clientId));
        if (outcome.next === 'resume') window.location.assign(outcome.href);
        else if (outcome.next === 'restart') {
          noteRestart(clientId!);
          window.location.replace(outcome.href);
        } else if (outcome.next === 'sign-in-alone') navigate(outcome.path, { replace: true });
        else setUsable(uid);
      });
    return () => {
      current = false;
    };
  }, [uid, search, navigate, shown]);

  useResumeWhenShown(usable === uid ? uid : null);
  return uid === null || usable === uid;
}

/**
 * A restart normally comes back with a request that waits, or answered by single sign-on. One
 * that comes back ended again (a browser that keeps no cookies, or an application whose login URI
 * leads back here) would go round for ever: the second time within RESTART_PAUSE_MS the page says
 * the request ended instead. Without sessionStorage nothing can be counted, so nothing restarts.
 */
function mayRestart(clientId: string): boolean {
  try {
    const last = Number(sessionStorage.getItem(restartedKey(clientId)));
    return !(last > 0 && Date.now() - last < RESTART_PAUSE_MS);
  } catch {
    return false;
  }
}

function noteRestart(clientId: string): void {
  try {
    sessionStorage.setItem(restartedKey(clientId), String(Date.now()));
  } catch {
    // mayRestart already said yes, so storage worked a moment ago; at worst one more restart.
  }
}
