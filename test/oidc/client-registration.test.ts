import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  clientMetadata,
  initiateLoginUriProblem,
  insertClient,
  redirectUriProblem,
  rotateClientSecret,
  updateClient,
  upsertClient,
  type ClientWrite,
} from '../../src/oidc/clients.ts';
import { sealClientSecret } from '../../src/oidc/client-secret.ts';
import { createProvider, type NyckelProvider } from '../../src/oidc/provider.ts';
import * as hashedClientSecretsMigration from '../../migrations/007_hashed_client_secrets.ts';
import { createTestContext, type TestContext } from '../helpers/context.ts';

let ctx: TestContext;
let provider: NyckelProvider;
beforeAll(async () => {
  ctx = await createTestContext();
  ({ provider } = await createProvider(ctx));
});
afterAll(() => ctx?.dispose());

/** Whether oidc-provider, configured as Nyckel configures it, accepts the metadata of a client. */
async function providerAccepts(metadata: Record<string, unknown>): Promise<boolean> {
  try {
    await provider.Client.validate(metadata as Parameters<NyckelProvider['Client']['validate']>[0]);
    return true;
  } catch {
    return false;
  }
}

describe('redirect and post-logout URIs at registration', () => {
  // [uri, accepted by oidc-provider for a web client using the code flow]
  const uris: [string, boolean][] = [
    ['https://rp.example.com/callback', true],
    ['http://localhost:9999/callback', true],
    ['http://127.0.0.1:9999/callback?from=nyckel', true],
    ['http://[::1]:9999/callback', true],
    // The library asks https only of implicit-flow clients: Nyckel has none.
    ['http://rp.example.com/callback', true],
    ['http://localhost:9997/cb#frag', false],
    ['http://localhost:9997/cb#', false],
    ['myapp:/cb', false],
    ['com.example.app://callback', false],
    ['javascript:alert(1)', false],
    ['data:text/html,hi', false],
    ['not a url', false],
  ];

  it.each(uris)('%s: refused exactly when oidc-provider would refuse the client at runtime', async (uri, webUri) => {
    const base = { client_id: 'rp-uri', client_secret: 'rp-uri-secret-0123456789' };
    const asRedirect = () => clientMetadata({ ...base, redirect_uris: [uri] });
    const asLogout = () => clientMetadata({ ...base, redirect_uris: ['https://rp.example.com/cb'], post_logout_redirect_uris: [uri] });
    // The verdict of the library itself, on metadata that is otherwise valid.
    const unchecked = uncheckedMetadata(base);
    expect(await providerAccepts({ ...unchecked, redirect_uris: [uri] })).toBe(webUri);
    expect(await providerAccepts({ ...unchecked, post_logout_redirect_uris: [uri] })).toBe(webUri);

    if (webUri) {
      expect(await providerAccepts(asRedirect())).toBe(true);
      expect(await providerAccepts(asLogout())).toBe(true);
    } else {
      expect(asRedirect).toThrow(z.ZodError);
      expect(asLogout).toThrow(z.ZodError);
    }
  });

  it('names the refused URI and what is wrong with it, under the field', () => {
    const refused = () => clientMetadata({ client_id: 'rp-bad', redirect_uris: ['https://ok.example.com/cb', 'http://localhost:9997/cb#frag'] });
    expect(refused).toThrow(expect.objectContaining({ issues: [expect.objectContaining({ path: ['redirect_uris', 1], message: '"http://localhost:9997/cb#frag" must not contain a fragment (#)' })] }));
    expect(redirectUriProblem('javascript:alert(1)')).toBe('must be an http or https URL');
  });

  it('refuses a user name or password in a URI, which oidc-provider would let through', async () => {
    const uri = 'https://user:password@rp.example.com/callback';
    expect(redirectUriProblem(uri)).toBe('must not contain a user name or password');
    expect(await providerAccepts({ ...uncheckedMetadata({ client_id: 'rp-userinfo', client_secret: 'rp-userinfo-secret-01234' }), redirect_uris: [uri] })).toBe(true);
  });
});

describe('initiate_login_uri at registration (OpenID Connect Core 4, third-party initiated login)', () => {
  // [uri, accepted by oidc-provider, Nyckel's refusal]
  const uris: [string, boolean, string | undefined][] = [
    ['https://rp.example.com/start', true, undefined],
    ['https://localhost:9999/start?from=nyckel', true, undefined],
    // Unlike redirect URIs, the library takes no http here, not even on localhost.
    ['http://localhost:9999/start', false, 'must be an https URL, on localhost too'],
    ['http://rp.example.com/start', false, 'must be an https URL, on localhost too'],
    ['javascript:alert(1)', false, 'must be an https URL, on localhost too'],
    ['/start', false, 'is not a URL'],
    ['rp.example.com/start', false, 'is not a URL'],
    // Nyckel's own rules, as for redirect URIs: it appends its query (iss, login_hint) there.
    ['https://rp.example.com/start#x', true, 'must not contain a fragment (#)'],
    ['https://user:password@rp.example.com/start', true, 'must not contain a user name or password'],
  ];

  it.each(uris)('%s: oidc-provider accepts it: %s; Nyckel refuses it: %j', async (uri, libraryAccepts, problem) => {
    const base = { client_id: 'rp-login-uri', client_secret: 'rp-login-uri-secret-0123' };
    expect(await providerAccepts({ ...uncheckedMetadata(base), initiate_login_uri: uri })).toBe(libraryAccepts);
    expect(initiateLoginUriProblem(uri)).toBe(problem);
    const registered = () => clientMetadata({ ...base, redirect_uris: ['https://rp.example.com/cb'], initiate_login_uri: uri });
    if (problem) {
      expect(registered).toThrow(expect.objectContaining({ issues: [expect.objectContaining({ path: ['initiate_login_uri'], message: `"${uri}" ${problem}` })] }));
    } else {
      expect(registered()).toMatchObject({ initiate_login_uri: uri });
      expect(await providerAccepts(registered())).toBe(true);
    }
  });
});

/** Valid metadata of a confidential client, built without Nyckel's checks (to ask the library alone). */
function uncheckedMetadata(base: { client_id: string; client_secret: string }): Record<string, unknown> {
  return {
    ...base,
    redirect_uris: ['https://rp.example.com/cb'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
  };
}

const metadataOf = (write: ClientWrite) => {
  if (!('metadata' in write)) throw new Error(`refused: ${write.refused}`);
  return write.metadata;
};

async function stored(clientId: string): Promise<Record<string, unknown>> {
  const row = await ctx.db('oidc_clients').where({ client_id: clientId }).first('metadata');
  return typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata;
}

/** The metadata as the table keeps it: the secret as its hash. */
function keptAs(metadata: Record<string, unknown>): Record<string, unknown> {
  return typeof metadata.client_secret === 'string' ? { ...metadata, client_secret: sealClientSecret(metadata.client_secret) } : metadata;
}

describe('registering and changing a client', () => {
  it('add refuses an existing client_id and leaves it as it was', async () => {
    const first = metadataOf(await insertClient(ctx.db, { client_id: 'rp-once', redirect_uris: ['http://localhost:9999/cb'], post_logout_redirect_uris: ['http://localhost:9999/'] }));
    expect(first.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const again = await insertClient(ctx.db, { client_id: 'rp-once', redirect_uris: ['http://localhost:9999/other'], public: true });
    expect(again).toEqual({ refused: 'exists' });
    expect(await stored('rp-once')).toEqual(keptAs(first));
  });

  it('update changes only what it is given: secret, auth method and other URIs stay', async () => {
    const before = metadataOf(await insertClient(ctx.db, { client_id: 'rp-update', client_name: 'RP', redirect_uris: ['http://localhost:9999/cb'], post_logout_redirect_uris: ['http://localhost:9999/'], id_token_signed_response_alg: 'RS256' }));
    const after = metadataOf(await updateClient(ctx.db, 'rp-update', { redirect_uris: ['http://localhost:9999/cb', 'http://localhost:9999/cb2'], client_name: undefined }));
    // The secret stays as the table keeps it (its hash): an update never shows it.
    expect(after).toEqual({ ...keptAs(before), redirect_uris: ['http://localhost:9999/cb', 'http://localhost:9999/cb2'] });
    expect(await stored('rp-update')).toEqual(after);

    const renamed = metadataOf(await updateClient(ctx.db, 'rp-update', { client_name: 'Renamed', post_logout_redirect_uris: ['http://localhost:9999/bye'] }));
    expect(renamed).toEqual({ ...after, client_name: 'Renamed', post_logout_redirect_uris: ['http://localhost:9999/bye'] });
  });

  it('update keeps a public client public, without a secret', async () => {
    const spa = metadataOf(await insertClient(ctx.db, { client_id: 'rp-spa', public: true, redirect_uris: ['http://localhost:9998/cb'] }));
    const after = metadataOf(await updateClient(ctx.db, 'rp-spa', { redirect_uris: ['http://localhost:9998/cb', 'http://localhost:9998/cb2'] }));
    expect(after).toEqual({ ...spa, redirect_uris: ['http://localhost:9998/cb', 'http://localhost:9998/cb2'] });
    expect(after.token_endpoint_auth_method).toBe('none');
    expect(after).not.toHaveProperty('client_secret');
  });

  it('update validates the result and writes nothing when it is refused', async () => {
    const before = await upsertClient(ctx.db, { client_id: 'rp-strict', redirect_uris: ['http://localhost:9999/cb'], client_secret: 'rp-strict-secret-0123456789' });
    await expect(updateClient(ctx.db, 'rp-strict', { redirect_uris: ['myapp:/cb'] })).rejects.toThrow(z.ZodError);
    expect(await stored('rp-strict')).toEqual(keptAs(before));
  });

  it('rotate-secret gives a confidential client a new secret and keeps everything else', async () => {
    const before = metadataOf(await insertClient(ctx.db, { client_id: 'rp-rotate', redirect_uris: ['http://localhost:9999/cb'], post_logout_redirect_uris: ['http://localhost:9999/'] }));
    const after = metadataOf(await rotateClientSecret(ctx.db, 'rp-rotate'));
    expect(after.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(after.client_secret).not.toBe(before.client_secret);
    expect(after).toEqual({ ...before, client_secret: after.client_secret });
    expect(await stored('rp-rotate')).toEqual(keptAs(after));
  });

  it('keeps a secret only as its hash, which oidc-provider checks the presented secret against', async () => {
    const given = 'rp-hashed-secret-0123456789';
    await upsertClient(ctx.db, { client_id: 'rp-hashed', redirect_uris: ['http://localhost:9999/cb'], client_secret: given });
    const made = metadataOf(await insertClient(ctx.db, { client_id: 'rp-made', redirect_uris: ['http://localhost:9999/cb'] }));
    for (const [id, secret] of [['rp-hashed', given], ['rp-made', String(made.client_secret)]] as const) {
      const row = await ctx.db('oidc_clients').where({ client_id: id }).first('metadata');
      expect(JSON.stringify(row.metadata)).not.toContain(secret);
      const kept = String((await stored(id)).client_secret);
      expect(kept).toMatch(/^sha256\$[A-Za-z0-9_-]{43}$/);
      const client = (await provider.Client.find(id))!;
      expect(await client.compareClientSecret(secret)).toBe(true);
      // Neither a wrong secret nor the stored hash itself passes.
      expect(await client.compareClientSecret(`${secret}x`)).toBe(false);
      expect(await client.compareClientSecret(kept)).toBe(false);
    }
  });

  it('migration 007 hashes the secrets stored as given, and leaves hashed ones', async () => {
    const legacy = { ...clientMetadata({ client_id: 'rp-legacy', redirect_uris: ['http://localhost:9999/cb'], client_secret: 'rp-legacy-secret-0123456789' }) };
    await ctx.db('oidc_clients').insert({ client_id: 'rp-legacy', metadata: JSON.stringify(legacy) });
    const hashedBefore = await stored('rp-made');
    await hashedClientSecretsMigration.up(ctx.db);
    expect(await stored('rp-legacy')).toEqual(keptAs(legacy));
    expect(await stored('rp-made')).toEqual(hashedBefore);
    expect(await (await provider.Client.find('rp-legacy'))!.compareClientSecret('rp-legacy-secret-0123456789')).toBe(true);
  });

  it('add and update set initiate_login_uri, update keeps it, null removes it; oidc-provider loads the client with it', async () => {
    const start = 'https://rp.example.com/start';
    const added = metadataOf(await insertClient(ctx.db, { client_id: 'rp-login', public: true, redirect_uris: ['https://rp.example.com/cb'], initiate_login_uri: start }));
    expect(await stored('rp-login')).toEqual({ ...added, initiate_login_uri: start });
    expect((await provider.Client.find('rp-login'))?.initiateLoginUri).toBe(start);

    const renamed = metadataOf(await updateClient(ctx.db, 'rp-login', { client_name: 'Renamed' }));
    expect(renamed).toEqual({ ...added, client_name: 'Renamed' });
    const moved = metadataOf(await updateClient(ctx.db, 'rp-login', { initiate_login_uri: 'https://rp.example.com/again' }));
    expect(moved).toEqual({ ...renamed, initiate_login_uri: 'https://rp.example.com/again' });
    await expect(updateClient(ctx.db, 'rp-login', { initiate_login_uri: 'http://rp.example.com/start' })).rejects.toThrow(z.ZodError);
    expect(await stored('rp-login')).toEqual(moved);
    const removed = metadataOf(await updateClient(ctx.db, 'rp-login', { initiate_login_uri: null }));
    expect(removed).not.toHaveProperty('initiate_login_uri');
    expect(await stored('rp-login')).toEqual(removed);

    // A confidential client given one by update, looked up for the first time (the adapter caches a client 30 s).
    await insertClient(ctx.db, { client_id: 'rp-login-later', redirect_uris: ['https://rp.example.com/cb'] });
    await updateClient(ctx.db, 'rp-login-later', { initiate_login_uri: start });
    expect((await provider.Client.find('rp-login-later'))?.initiateLoginUri).toBe(start);
  });

  it('refuses to rotate the secret of a public client, and to change an unknown one', async () => {
    await insertClient(ctx.db, { client_id: 'rp-public', public: true, redirect_uris: ['http://localhost:9998/cb'] });
    expect(await rotateClientSecret(ctx.db, 'rp-public')).toEqual({ refused: 'public' });
    expect(await rotateClientSecret(ctx.db, 'rp-nobody')).toEqual({ refused: 'unknown' });
    expect(await updateClient(ctx.db, 'rp-nobody', { client_name: 'x' })).toEqual({ refused: 'unknown' });
  });
});
