/// <reference path="../types/oidc-provider-internals.d.ts" />
import type Provider from 'oidc-provider';
// oidc-provider has no public way to change its keys while it runs; this is the function its own
// constructor loads `jwks` with (oidc-provider is pinned; test/foundation/keys.test.ts runs it).
import initializeKeystore from 'oidc-provider/lib/helpers/initialize_keystore.js';
import type { Context } from '../context.ts';
import { jwksRefreshSeconds, signingKeysNow, type PrivateJwk } from './keys.ts';

/** The keys in the order oidc-provider picks from (it signs with the first of an algorithm). */
const fingerprintOf = (keys: readonly PrivateJwk[]) => keys.map((key) => key.kid).join(' ');

/**
 * Keeps a running provider's signing keys in step with signing_keys, so a rotation needs no
 * restart: called on every request to oidc-provider, it re-reads the keys at most every
 * jwksRefreshSeconds, in the background (the request does not wait), and hands oidc-provider the
 * new set when it changed. So within a minute of a rotated key's activation every instance signs
 * with it, and a key rotated in after an instance started verifies there too (an ID token it
 * signed, sent back as `id_token_hint`). The JWKS (jwks.routes.ts) lists a key keyPublishSeconds
 * before it signs, so relying parties know it first.
 *
 * A failed read keeps the keys this instance has and is logged; the next request past the
 * interval tries again.
 */
export function createSigningKeyRefresh(ctx: Pick<Context, 'db' | 'secretBox' | 'now' | 'logger'>, provider: Provider, loaded: readonly PrivateJwk[]): () => void {
  let fingerprint = fingerprintOf(loaded);
  let readAt = ctx.now().getTime();
  let reading = false;

  const reload = async () => {
    const keys = await signingKeysNow(ctx);
    const next = fingerprintOf(keys);
    if (next === fingerprint) return;
    (initializeKeystore as (this: Provider, jwks: { keys: PrivateJwk[] }) => void).call(provider, { keys });
    fingerprint = next;
    ctx.logger.info({ kids: keys.map((key) => key.kid) }, 'signing keys changed: oidc-provider now signs with the first of each algorithm');
  };

  return () => {
    const now = ctx.now().getTime();
    if (reading || now - readAt < jwksRefreshSeconds * 1000) return;
    reading = true;
    readAt = now;
    reload()
      .catch((error: unknown) => ctx.logger.warn({ err: error }, 'could not re-read the signing keys; signing with those read before'))
      .finally(() => {
        reading = false;
      });
  };
}
