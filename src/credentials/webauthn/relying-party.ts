import { COSEALG } from '@simplewebauthn/server/helpers';
import type { Config } from '../../config/index.ts';

/** What every WebAuthn ceremony checks against: where Nyckel is served, from config (never the Host header). */
export interface RelyingParty {
  /** The RP ID: the public host name. A passkey is bound to it; browsers refuse IP addresses here. */
  id: string;
  /** The only origin a ceremony may come from: clientDataJSON.origin must equal it exactly. */
  origin: string;
  name: string;
}

export function relyingParty(config: Pick<Config, 'publicUrl'>): RelyingParty {
  const url = new URL(config.publicUrl);
  return { id: url.hostname, origin: url.origin, name: 'Nyckel' };
}

/** Milliseconds the browser gives the person to answer the passkey prompt. */
export const ceremonyTimeoutMs = 120_000;

/**
 * A challenge lives a little longer than the prompt (a slow network between the answer and the
 * call), never longer: a challenge that is not used soon is useless to anyone.
 */
export const challengeTtlSeconds = ceremonyTimeoutMs / 1000 + 30;

/**
 * Key algorithms accepted for new passkeys: EdDSA, ES256, RS256 (what authenticators ship). Named
 * here rather than left to the library, whose default probes the runtime for experimental ML-DSA
 * support (a warning on every start) and would change with the runtime.
 */
export const supportedAlgorithms: number[] = [COSEALG.EdDSA, COSEALG.ES256, COSEALG.RS256];
