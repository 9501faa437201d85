import { createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';

const derived = new WeakMap<Buffer, Map<string, KeyObject>>();

/**
 * A 32-byte HMAC key of its own for one purpose (`info`), derived from ENCRYPTION_KEY with HKDF,
 * so no two uses share a key. Made once per key and purpose, and a KeyObject: createHmac checks a
 * Buffer key's type the slow way on every call.
 */
export function derivedKey(encryptionKey: Buffer, info: string): KeyObject {
  let byInfo = derived.get(encryptionKey);
  if (!byInfo) derived.set(encryptionKey, (byInfo = new Map()));
  let key = byInfo.get(info);
  if (!key) {
    key = createSecretKey(Buffer.from(hkdfSync('sha256', encryptionKey, Buffer.alloc(0), info, 32)));
    byInfo.set(info, key);
  }
  return key;
}
