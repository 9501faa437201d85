import type { AvailableCredential, LoginSessionResponse } from '../api/types.ts';
import type { ConfiguredProvider } from '../api/upstream.ts';

export type Provider = 'google' | 'microsoft';

export const PROVIDERS: readonly Provider[] = ['google', 'microsoft'];

/**
 * Which provider an oidc credential belongs to. With the server's list (GET /auth/providers) its
 * `provider` host must be that of a configured provider; without it, the host names the provider
 * (`accounts.google.com`, `login.microsoftonline.com`).
 */
export function providerOf(credential: AvailableCredential, configured?: readonly ConfiguredProvider[] | null): Provider | null {
  if (credential.type !== 'oidc') return null;
  const host = (credential.provider ?? '').toLowerCase();
  if (configured) return configured.find((provider) => provider.host.toLowerCase() === host)?.id ?? null;
  return PROVIDERS.find((provider) => host.includes(provider)) ?? null;
}

/** Upstream providers the account can sign in with: its oidc credentials' providers. */
export function signInProviders(session: LoginSessionResponse | null, configured?: readonly ConfiguredProvider[] | null): Provider[] {
  const credentials = session?.available_credentials ?? [];
  return PROVIDERS.filter((provider) => credentials.some((credential) => providerOf(credential, configured) === provider));
}

/**
 * The buttons of the credentials step: every configured provider (a first sign-in whose verified
 * email is the account's links itself); before the list has loaded, none.
 */
export function credentialButtons(configured: readonly ConfiguredProvider[] | null): Provider[] {
  return PROVIDERS.filter((provider) => configured?.some((c) => c.id === provider));
}

/** Whether the account has a password (an answer without a credential list counts as yes). */
export function hasPasswordCredential(session: LoginSessionResponse | null): boolean {
  const credentials = session?.available_credentials ?? [];
  return credentials.length === 0 || credentials.some((credential) => credential.type === 'password');
}

const firstFactorTypes = new Set(['password', 'oidc', 'webauthn']);

/**
 * A single-provider account (one upstream credential, no password, no passkey; a TOTP does not
 * count) is sent straight to that provider (spec section 2).
 */
export function singleProvider(session: LoginSessionResponse | null, configured?: readonly ConfiguredProvider[] | null): Provider | null {
  const firstFactors = (session?.available_credentials ?? []).filter((credential) => firstFactorTypes.has(String(credential.type)));
  if (firstFactors.length !== 1) return null;
  return providerOf(firstFactors[0]!, configured);
}

/** Providers that may be linked on the create-credential step: the configured ones. */
export function linkableProviders(session: LoginSessionResponse | null, configured?: readonly ConfiguredProvider[] | null): Provider[] {
  if (configured) return credentialButtons(configured);
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
