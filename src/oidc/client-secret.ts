import { createHash, timingSafeEqual } from 'node:crypto';
import type Provider from 'oidc-provider';

/**
 * Client secrets are kept as their SHA-256, never as given: a database dump, a backup or a
 * read-only SQL account does not hand out the relying parties' secrets, and `npm run client`
 * shows a new secret once. A fast hash suffices for the generated secrets (256 random bits: no
 * guessing them from the hash); a slow one (bcrypt, argon2) would cost every token request
 * milliseconds. Secrets given by hand (the demo's) are only as strong as they were chosen.
 *
 * oidc-provider compares the presented secret with the client's `client_secret` (its Client
 * model's compareClientSecret); with the hash stored there, the presented secret is hashed and
 * the two digests compared in constant time (hashedClientSecrets). Nyckel signs nothing with a
 * client's secret (no HS256, no client_secret_jwt), so nothing else reads it.
 */
const sealedPrefix = 'sha256$';

/** The stored form of a secret; a stored form is kept as it is. */
export function sealClientSecret(secret: string): string {
  return isSealed(secret) ? secret : `${sealedPrefix}${digest(secret).toString('base64url')}`;
}

export function isSealed(stored: string): boolean {
  return stored.startsWith(sealedPrefix);
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * Whether `presented` is the secret `stored` keeps. The stored form itself does not pass: it is
 * hashed like any presented value. A secret stored as given (a row from before the hashing, which
 * migration 007 hashes) is compared through its digest too, so neither comparison leaks its length.
 */
export function clientSecretMatches(stored: string, presented: string): boolean {
  const expected = isSealed(stored) ? Buffer.from(stored.slice(sealedPrefix.length), 'base64url') : digest(stored);
  const actual = digest(presented);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** Makes oidc-provider compare presented secrets with the stored hashes. */
export function hashedClientSecrets(provider: Provider): void {
  const Client = provider.Client as unknown as { prototype: { clientSecret?: string; compareClientSecret(actual: string): boolean | Promise<boolean> } };
  Client.prototype.compareClientSecret = function compareClientSecret(this: { clientSecret?: string }, actual: string) {
    return typeof this.clientSecret === 'string' && typeof actual === 'string' && clientSecretMatches(this.clientSecret, actual);
  };
}
