import type { LoginSessionResponse } from '../api/types.ts';

export type Provider = 'google' | 'microsoft';

export const PROVIDERS: readonly Provider[] = ['google', 'microsoft'];

/** Upstream providers the account can sign in with: oidc credentials whose host names them. */
export function signInProviders(session: LoginSessionResponse | null): Provider[] {
  const credentials = session?.available_credentials ?? [];
  return PROVIDERS.filter((provider) =>
    credentials.some((credential) => credential.type === 'oidc' && (credential.provider ?? '').toLowerCase().includes(provider)),
  );
}

/** Whether the account has a password (an answer without a credential list counts as yes). */
export function hasPasswordCredential(session: LoginSessionResponse | null): boolean {
  const credentials = session?.available_credentials ?? [];
  return credentials.length === 0 || credentials.some((credential) => credential.type === 'password');
}

/**
 * A single-provider account (exactly one credential, an upstream one) is sent straight to that
 * provider (spec section 2).
 */
export function singleProvider(session: LoginSessionResponse | null): Provider | null {
  const credentials = session?.available_credentials ?? [];
  if (credentials.length !== 1) return null;
  const providers = signInProviders(session);
  return providers.length === 1 ? (providers[0] ?? null) : null;
}

/** Providers that may be linked on the create-credential step: the server's list, else both. */
export function linkableProviders(session: LoginSessionResponse | null): Provider[] {
  const enabled = session?.enabled_providers;
  if (!Array.isArray(enabled)) return [...PROVIDERS];
  return PROVIDERS.filter((provider) => enabled.includes(provider));
}

export function providerSignInUrl(provider: Provider, sessionId: string): string {
  return `/auth/login/oauth/${provider}?session_id=${encodeURIComponent(sessionId)}`;
}

export function providerLinkUrl(provider: Provider, sessionId: string): string {
  return `/auth/login/link/oauth/${provider}?session_id=${encodeURIComponent(sessionId)}`;
}
