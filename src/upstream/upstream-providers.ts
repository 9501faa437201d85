import type { Config, UpstreamProviderConfig } from '../config/index.ts';

/** The upstream identity providers Nyckel knows; each is on only when configured. */
export const upstreamProviderNames = ['google', 'microsoft'] as const;

export type UpstreamProviderName = (typeof upstreamProviderNames)[number];

export function isUpstreamProviderName(value: unknown): value is UpstreamProviderName {
  return typeof value === 'string' && (upstreamProviderNames as readonly string[]).includes(value);
}

export function providerSettings(config: Config, name: UpstreamProviderName): UpstreamProviderConfig | undefined {
  return config.upstream[name];
}

/**
 * The `provider` column of an upstream credential: the issuer's host (spec: "oidc with provider
 * {host}"). A Microsoft issuer template's host is the same for every tenant.
 */
export function issuerHost(issuer: string): string {
  return new URL(issuer.replace('{tenantid}', 'tenant')).host;
}

/** What the portal may know: which providers are on, and the host their credentials carry. */
export function configuredProviders(config: Config): { id: UpstreamProviderName; host: string }[] {
  return upstreamProviderNames.flatMap((id) => {
    const settings = config.upstream[id];
    return settings ? [{ id, host: issuerHost(settings.issuer) }] : [];
  });
}

/** The redirect URI registered at the provider: built from the public URL, never from Host. */
export function callbackUrl(config: Config, name: UpstreamProviderName): string {
  return `${config.publicUrl}/auth/oauth/callback/${name}`;
}
