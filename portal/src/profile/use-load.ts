import { useCallback, useEffect, useState } from 'react';
import { profileFailure, type ProfileFailure } from './profile-errors.ts';
import { useSessionExpired } from './session-expired.ts';

/**
 * A list or record the page loads (spec section 4): loading, failed (with what the failure
 * means, e.g. `reauth` when the server asks for a recent sign-in first), or ready with its data.
 */
export type Load<T> =
  | { status: 'loading' }
  | { status: 'failed'; failure: Exclude<ProfileFailure, { kind: 'signed-out' }> }
  | { status: 'ready'; data: T };

export interface Loaded<T> {
  state: Load<T>;
  /** Fetches again; data already shown stays until the new answer arrives. */
  reload: () => void;
  /** Changes the data in place (after a change the server confirmed). */
  update: (change: (data: T) => T) => void;
}

/**
 * Runs `load` (a stable function) on mount and on each reload. A signed-out answer (401) sends
 * the person to /login (session expired, and back here) instead of showing a failure.
 */
export function useLoad<T>(load: () => Promise<T>): Loaded<T> {
  const sessionExpired = useSessionExpired();
  const [state, setState] = useState<Load<T>>({ status: 'loading' });
  const [version, setVersion] = useState(0);

  useEffect(() => {
    let active = true;
    load().then(
      (data) => active && setState({ status: 'ready', data }),
      (error: unknown) => {
        if (!active) return;
        const failure = profileFailure(error);
        if (failure.kind === 'signed-out') sessionExpired();
        else setState({ status: 'failed', failure });
      },
    );
    return () => {
      active = false;
    };
  }, [load, version, sessionExpired]);

  const reload = useCallback(() => {
    setState((current) => (current.status === 'ready' ? current : { status: 'loading' }));
    setVersion((n) => n + 1);
  }, []);

  const update = useCallback((change: (data: T) => T) => {
    setState((current) => (current.status === 'ready' ? { status: 'ready', data: change(current.data) } : current));
  }, []);

  return { state, reload, update };
}
