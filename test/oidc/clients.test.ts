import { describe, expect, it } from 'vitest';
import Provider, { type AdapterPayload } from 'oidc-provider';
import { reuseDerivedClients } from '../../src/oidc/clients.ts';

/**
 * A real oidc-provider whose Client adapter answers from a cache the test controls, as Nyckel's
 * ClientAdapter does: the same metadata object until it is read again.
 */
function providerWithClients() {
  const metadata = new Map<string, AdapterPayload>();
  let reads = 0;
  class Adapter {
    async find(id: string) {
      reads += 1;
      return metadata.get(id);
    }
    async upsert() {}
    async findByUid() {}
    async findByUserCode() {}
    async consume() {}
    async destroy() {}
    async revokeByGrantId() {}
  }
  const provider = new Provider('http://localhost:3000', { adapter: Adapter });
  const register = (redirectUri: string) =>
    metadata.set('rp', { client_id: 'rp', client_secret: 'a-secret-of-some-length', redirect_uris: [redirectUri] });
  return { provider, metadata, register, reads: () => reads };
}

describe('reuseDerivedClients', () => {
  it('hands out the Client derived from the cached metadata again without looking it up', async () => {
    const { provider, metadata, register, reads } = providerWithClients();
    register('https://rp.example/cb');
    reuseDerivedClients(provider, (id) => metadata.get(id));
    const first = await provider.Client.find('rp');
    const readsAfterFirst = reads();
    const second = await provider.Client.find('rp');
    expect(first?.clientId).toBe('rp');
    expect(second).toBe(first);
    // Without the reuse, oidc-provider reads the metadata (and serialises and hashes it) on every lookup.
    expect(reads()).toBe(readsAfterFirst);
  });

  it('derives the Client anew once the metadata is read again, so a changed client takes effect', async () => {
    const { provider, metadata, register } = providerWithClients();
    register('https://rp.example/cb');
    reuseDerivedClients(provider, (id) => metadata.get(id));
    const before = await provider.Client.find('rp');
    register('https://rp.example/changed');
    const after = await provider.Client.find('rp');
    expect(after).not.toBe(before);
    expect(after?.redirectUris).toEqual(['https://rp.example/changed']);
  });

  it('reuses nothing while the cache holds no metadata, and finds no unknown client', async () => {
    const { provider, register, reads } = providerWithClients();
    register('https://rp.example/cb');
    reuseDerivedClients(provider, () => undefined);
    await provider.Client.find('rp');
    const readsAfterFirst = reads();
    await provider.Client.find('rp');
    expect(reads()).toBe(readsAfterFirst + 1);
    await expect(provider.Client.find('nobody')).resolves.toBeUndefined();
  });
});
