import * as client from 'openid-client';

/** An authorization request as a relying party makes it, with what its callback must check. */
export interface PkceAuthorization {
  url: URL;
  verifier: string;
  state: string;
  /** Absent when the request carried none (then the ID token must carry none either). */
  nonce?: string;
}

/**
 * Builds the authorization URL with PKCE (S256), a state and, unless `nonce: false`, a nonce;
 * `params` gives redirect_uri, scope and anything else (prompt, max_age, ...).
 */
export async function pkceAuthorization(
  config: client.Configuration,
  params: Record<string, string> & { redirect_uri: string; scope: string },
  { nonce: withNonce = true }: { nonce?: boolean } = {},
): Promise<PkceAuthorization> {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = withNonce ? client.randomNonce() : undefined;
  const url = client.buildAuthorizationUrl(config, {
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...(nonce !== undefined && { nonce }),
    ...params,
  });
  return { url, verifier, state, ...(nonce !== undefined && { nonce }) };
}
