import { useCallback, useEffect, useState } from 'react';
import { configuredProviders, type ConfiguredProvider } from '../api/upstream.ts';

/** GET /auth/providers as the page knows it. */
export interface ConfiguredProviders {
  /** The providers the server has configured; null while loading or after a failed load. */
  list: readonly ConfiguredProvider[] | null;
  /**
   * The load failed: which providers exist is unknown, not "none". A provider that may not be
   * configured is never offered, and an account is never judged by the missing list.
   */
  failed: boolean;
  /** Loads the list again (after a failure). */
  retry: () => void;
}

type Loaded = Pick<ConfiguredProviders, 'list' | 'failed'>;

const LOADING: Loaded = { list: null, failed: false };

export function useConfiguredProviders(): ConfiguredProviders {
  const [loaded, setLoaded] = useState<Loaded>(LOADING);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let live = true;
    configuredProviders().then(
      (list) => live && setLoaded({ list, failed: false }),
      (error: unknown) => {
        console.warn('could not load the sign-in providers', error);
        if (live) setLoaded({ list: null, failed: true });
      },
    );
    return () => {
      live = false;
    };
  }, [attempt]);
  const retry = useCallback(() => {
    setLoaded(LOADING);
    setAttempt((n) => n + 1);
  }, []);
  return { ...loaded, retry };
}
