import { useCallback, useEffect, useReducer, useRef } from 'react';
import { useAdminErrorHandler } from './admin-auth.ts';
import { initialLoadState, loadReducer, type LoadAction, type LoadState } from './load-status.ts';

export interface Loader<T> extends LoadState<T> {
  /** Starts a request; only the latest one's answer counts. */
  run: (fetch: () => Promise<T>) => void;
  /** Back to idle and empty; a running request's answer is dropped. */
  clear: () => void;
  /** Replaces the data after a local change (a deleted credential, a posted setting). */
  set: (data: T) => void;
}

/** One list's load status and data; a 401/403 goes to the console sign-in notice. */
export function useLoad<T>(): Loader<T> {
  const [state, dispatch] = useReducer(loadReducer as (state: LoadState<T>, action: LoadAction<T>) => LoadState<T>, undefined, () => initialLoadState<T>());
  const handleAdminError = useAdminErrorHandler();
  const latest = useRef(0);

  useEffect(() => {
    return () => {
      latest.current += 1;
    };
  }, []);

  const run = useCallback(
    (fetch: () => Promise<T>) => {
      const id = (latest.current += 1);
      dispatch({ type: 'start' });
      fetch().then(
        (data) => {
          if (latest.current === id) dispatch({ type: 'success', data });
        },
        (error: unknown) => {
          if (latest.current !== id) return;
          dispatch({ type: 'failure', error });
          handleAdminError(error);
        },
      );
    },
    [handleAdminError],
  );

  const clear = useCallback(() => {
    latest.current += 1;
    dispatch({ type: 'clear' });
  }, []);

  const set = useCallback((data: T) => dispatch({ type: 'success', data }), []);

  return { ...state, run, clear, set };
}
