/**
 * Every data list has a load status (spec section 4): idle, loading while a request runs, failed
 * after an error, idle again on success. `data` is null until something loaded, and clearing empties it.
 */
export type LoadStatus = 'idle' | 'loading' | 'failed';

export interface LoadState<T> {
  status: LoadStatus;
  data: T | null;
  /** What the failed request threw, for the failure's reason (failureText); only when failed. */
  error?: unknown;
}

export type LoadAction<T> = { type: 'start' } | { type: 'success'; data: T } | { type: 'failure'; error?: unknown } | { type: 'clear' };

export function initialLoadState<T>(): LoadState<T> {
  return { status: 'idle', data: null };
}

/** A failed reload keeps nothing: a stale list must not look like the answer to the new search. */
export function loadReducer<T>(state: LoadState<T>, action: LoadAction<T>): LoadState<T> {
  switch (action.type) {
    case 'start':
      return { status: 'loading', data: state.data };
    case 'success':
      return { status: 'idle', data: action.data };
    case 'failure':
      return action.error === undefined ? { status: 'failed', data: null } : { status: 'failed', data: null, error: action.error };
    case 'clear':
      return { status: 'idle', data: null };
  }
}
