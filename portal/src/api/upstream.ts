import { request } from './client.ts';

/** A provider the server has configured, and the host its oidc credentials carry as `provider`. */
export interface ConfiguredProvider {
  id: 'google' | 'microsoft';
  host: string;
}

let pending: Promise<ConfiguredProvider[]> | null = null;

/** GET /auth/providers, once per page load (a failure is retried on the next call). */
export function configuredProviders(): Promise<ConfiguredProvider[]> {
  pending ??= request<{ providers?: ConfiguredProvider[] } | undefined>('GET', '/auth/providers').then(
    (answer) => (Array.isArray(answer?.providers) ? answer.providers : []),
    (error: unknown) => {
      pending = null;
      throw error;
    },
  );
  return pending;
}

/** Where the browser goes to link a provider from the profile (the server checks `from`). */
export function profileLinkUrl(provider: ConfiguredProvider['id'], from = '/profile'): string {
  return `/auth/link/oauth/${provider}?from=${encodeURIComponent(from)}`;
}
