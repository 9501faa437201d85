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

/** What the credentials step offers: provider buttons, the password form, or neither yet. */
export interface CredentialOptions {
  providers: Provider[];
  showPassword: boolean;
  /**
   * No password and nothing else to offer until the providers list is known (while it loads, or
   * after it failed and the account's credentials name no provider by host).
   */
  unclassified: boolean;
}

/**
 * The buttons are every configured provider (a first sign-in with a verified matching email links
 * itself); without the list (it failed to load) the account's own credentials name theirs by
 * host. The password form is the last resort of an account without one only once the list says
 * there is no other way: an account not classified yet is never shown a password it does not have.
 */
export function credentialOptions(
  session: LoginSessionResponse | null,
  configured: { list: readonly ConfiguredProvider[] | null; failed: boolean },
  passkey: boolean,
): CredentialOptions {
  const { list, failed } = configured;
  const providers = list ? credentialButtons(list) : failed ? signInProviders(session) : [];
  const showPassword = hasPasswordCredential(session) || (list !== null && providers.length === 0 && !passkey);
  return { providers, showPassword, unclassified: !showPassword && providers.length === 0 && !passkey };
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
