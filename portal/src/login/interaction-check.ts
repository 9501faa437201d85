import { request } from '../api/client.ts';

/** GET /auth/interaction/:uid/status (openapi.yaml). */
export interface InteractionStatus {
  state: 'active' | 'ended';
  /** For an active request: the browser's Nyckel session would finish it now (resumeHref), no sign-in needed. */
  resumable?: boolean;
  /** For an ended request: where its application starts a new one (its initiate_login_uri, with iss). */
  restart_uri?: string;
}

/** Whether the application's sign-in request named by /login's query still waits in this browser. */
export function interactionStatus(uid: string, clientId: string | null): Promise<InteractionStatus> {
  const query = clientId ? `?${new URLSearchParams({ client_id: clientId })}` : '';
  return request('GET', `/auth/interaction/${encodeURIComponent(uid)}/status${query}`);
}

/** Where the browser finishes a resumable request: the interaction route, which single sign-on answers. */
export function resumeHref(uid: string): string {
  return `/auth/interaction/${encodeURIComponent(uid)}`;
}

/**
 * What /login does with the answer, before it shows anything but "Loading":
 * - sign-in: the request waits (or the check failed: the page goes on as it would without it);
 * - resume: the request waits, and the browser's Nyckel session (made in another tab) answers it:
 *   go finish it (resumeHref) instead of asking for a sign-in;
 * - restart: the request is over and its application can start a new one: go there, where single
 *   sign-on may answer at once;
 * - sign-in-alone: the request is over and only the person can go back to the application: the
 *   page says so from the start (errors.interaction_expired), and without `interaction` and
 *   `client_id` a sign-in on it signs in to Nyckel alone instead of failing after the password.
 */
export type InteractionOutcome =
  | { next: 'sign-in' }
  | { next: 'resume'; href: string }
  | { next: 'restart'; href: string }
  | { next: 'sign-in-alone'; path: string };

/** `status` is null when the check itself failed; `mayRestart` is false to break a loop of restarts. */
export function afterInteractionCheck(status: InteractionStatus | null, search: string, mayRestart: boolean): InteractionOutcome {
  const uid = new URLSearchParams(search).get('interaction');
  if (status?.state === 'active' && status.resumable === true && uid) return { next: 'resume', href: resumeHref(uid) };
  if (status?.state !== 'ended') return { next: 'sign-in' };
  const restart = mayRestart ? webUrl(status.restart_uri) : null;
  if (restart) return { next: 'restart', href: restart };
  const query = new URLSearchParams(search);
  query.delete('interaction');
  query.delete('client_id');
  query.set('error', 'interaction_expired');
  return { next: 'sign-in-alone', path: `/login?${query.toString()}` };
}

function webUrl(uri: string | undefined): string | null {
  if (!uri) return null;
  try {
    const url = new URL(uri);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}
