import { useEffect, useState } from 'react';
import { configuredProviders, type ConfiguredProvider } from '../api/upstream.ts';

/**
 * The providers the server has configured; null while loading. A failed load hides the buttons
 * (an empty list): a provider that may not be configured is never offered.
 */
export function useConfiguredProviders(): readonly ConfiguredProvider[] | null {
  const [providers, setProviders] = useState<readonly ConfiguredProvider[] | null>(null);
  useEffect(() => {
    let live = true;
    configuredProviders().then(
      (list) => live && setProviders(list),
      (error: unknown) => {
        console.warn('could not load the sign-in providers', error);
        if (live) setProviders([]);
      },
    );
    return () => {
      live = false;
    };
  }, []);
  return providers;
}
