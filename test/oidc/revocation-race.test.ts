import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeGrant } from '../../src/oidc/grants.ts';
import { upsertClient } from '../../src/oidc/clients.ts';
import { createAccount } from '../fixtures/accounts.ts';
import { pkceAuthorization, type PkceAuthorization } from '../helpers/authorization.ts';
import { BrowserLike } from '../helpers/browser-like.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { StoreUnavailableError } from '../../src/store/store.ts';

/**
 * A token request that has read its code or refresh token and grant when the grant is revoked
 * (sign out everywhere, an operator, a replay elsewhere) must not answer with tokens, nor store
 * new ones under the grant the revocation just swept.
 */

const password = 'Correct-horse9!';
const redirectUri = 'http://127.0.0.1:9/callback';
const clientId = 'rp-race';
const clientSecret = 'rp-race-secret-0123456789';

let server: TestServer;
let config: client.Configuration;

beforeAll(async () => {
  server = await startTestServer();
  await createAccount(server.ctx.db, { email: 'race-user@example.com', password, name: 'Rae Race' });
  await upsertClient(server.ctx.db, { client_id: clientId, redirect_uris: [redirectUri], client_secret: clientSecret });
  config = await client.discovery(new URL(server.issuer), clientId, clientSecret, undefined, { execute: [client.allowInsecureRequests] });
});

afterAll(async () => {
  await server?.close();
});

/** Signs in through the portal's API and follows the browser back to the client: the callback URL with the code. */
async function codeFor(authorization: PkceAuthorization): Promise<URL> {
  const browser = new BrowserLike(server.base);
  let { url } = await browser.follow(authorization.url.toString());
  const start = await browser.json<{ session_id: string }>(`/auth/login/start${url.search}`, { email: 'race-user@example.com' });
  const done = await browser.json<{ state: string; redirect_to: string }>('/auth/login/verify-password', {
    session_id: start.body.session_id,
    email: 'race-user@example.com',
    password,
    remember: false,
  });
  expect(done.body.state).toBe('Done');
  ({ url } = await browser.follow(done.body.redirect_to));
  expect(url.origin + url.pathname).toBe(redirectUri);
  return url;
}

function tokenRequest(params: Record<string, string>): Promise<Response> {
  return fetch(`${server.issuer}/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams(params),
  });
}

async function grantIdOf(modelKey: string): Promise<string> {
  const stored = await server.ctx.store.get(modelKey);
  return (JSON.parse(stored!) as { grantId: string }).grantId;
}

/**
 * Holds the next claimAndWrite (the token request's single write, after it read its token and
 * grant) until `release`; `reached` resolves when the request gets there.
 */
function holdNextClaim() {
  const store = server.ctx.store;
  const original = store.claimAndWrite;
  let reached!: () => void;
  let release!: () => void;
  const atClaim = new Promise<void>((resolve) => (reached = resolve));
  const gate = new Promise<void>((resolve) => (release = resolve));
  store.claimAndWrite = async (...args: Parameters<typeof original>) => {
    store.claimAndWrite = original;
    reached();
    await gate;
    return original.apply(store, args);
  };
  return { atClaim, release, restore: () => (store.claimAndWrite = original) };
}

/** Every stored code or token issued under the grant, and its index set's members. */
async function leftUnder(grantId: string): Promise<{ tokens: string[]; indexed: string[]; grant: string | null }> {
  const store = server.ctx.store;
  const tokens: string[] = [];
  for (const model of ['AccessToken', 'RefreshToken', 'AuthorizationCode']) {
    for (const { key } of await store.scan(`oidc:${model}:`)) {
      const stored = await store.get(key);
      if (stored && (JSON.parse(stored) as { grantId?: string }).grantId === grantId) tokens.push(key);
    }
  }
  return { tokens, indexed: await store.smembers(`oidc:grant:${grantId}`), grant: await store.get(`oidc:Grant:${grantId}`) };
}

describe('a grant revoked while a token request under it is in flight', () => {
  const cases = {
    async refresh_token() {
      const authorization = await pkceAuthorization(config, { redirect_uri: redirectUri, scope: 'openid offline_access', prompt: 'consent' });
      const callback = await codeFor(authorization);
      const tokens = await client.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: authorization.verifier,
        expectedState: authorization.state,
        expectedNonce: authorization.nonce,
      });
      return {
        grantId: await grantIdOf(`oidc:RefreshToken:${tokens.refresh_token!}`),
        params: { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! },
      };
    },
    async authorization_code() {
      const authorization = await pkceAuthorization(config, { redirect_uri: redirectUri, scope: 'openid offline_access', prompt: 'consent' });
      const code = (await codeFor(authorization)).searchParams.get('code')!;
      return {
        grantId: await grantIdOf(`oidc:AuthorizationCode:${code}`),
        params: { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: authorization.verifier },
      };
    },
  };

  it.each(Object.keys(cases) as (keyof typeof cases)[])('answers a %s request invalid_grant with no token, and re-creates nothing under the grant', async (grantType) => {
    const { grantId, params } = await cases[grantType]();
    const hold = holdNextClaim();
    try {
      const answered = tokenRequest(params);
      // The request has read its token and grant and is about to store its claim and new tokens.
      await hold.atClaim;
      await revokeGrant(server.app.provider, grantId);
      hold.release();

      const response = await answered;
      const body = (await response.json()) as Record<string, unknown>;
      expect(response.status).toBe(400);
      expect(body).toMatchObject({ error: 'invalid_grant' });
      for (const field of ['access_token', 'id_token', 'refresh_token']) expect(body).not.toHaveProperty(field);
    } finally {
      hold.restore();
    }
    expect(await leftUnder(grantId)).toEqual({ tokens: [], indexed: [], grant: null });
  });

  it('refuses a request whose claim lands while the revocation sweeps the tokens: the grant is gone before the sweep starts', async () => {
    const { grantId, params } = await cases.refresh_token();
    const store = server.ctx.store;
    const hold = holdNextClaim();
    const smembers = store.smembers;
    try {
      const answered = tokenRequest(params);
      await hold.atClaim;
      // The revocation reaches its sweep of the grant's tokens; the request stores its claim and
      // tokens right then, and only then does the sweep read what to delete.
      store.smembers = async (key: string) => {
        if (key === `oidc:grant:${grantId}`) {
          store.smembers = smembers;
          hold.release();
          await answered;
        }
        return smembers.call(store, key);
      };
      await revokeGrant(server.app.provider, grantId);

      const response = await answered;
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: 'invalid_grant' });
    } finally {
      hold.restore();
      store.smembers = smembers;
    }
    expect(await leftUnder(grantId)).toEqual({ tokens: [], indexed: [], grant: null });
  });
});

describe('a token request whose store answer times out after the claim ran', () => {
  /** The next claimAndWrite runs on the store, then fails as a command past its deadline does. */
  function landThenTimeOut() {
    const store = server.ctx.store;
    const original = store.claimAndWrite;
    store.claimAndWrite = async (...args: Parameters<typeof original>) => {
      store.claimAndWrite = original;
      await original.apply(store, args);
      throw new StoreUnavailableError('command timed out (test)');
    };
    return () => (store.claimAndWrite = original);
  }

  it('answers the tokens it stored, so the client does not retry a used refresh token and lose its grant', async () => {
    const authorization = await pkceAuthorization(config, { redirect_uri: redirectUri, scope: 'openid offline_access', prompt: 'consent' });
    const tokens = await client.authorizationCodeGrant(config, await codeFor(authorization), {
      pkceCodeVerifier: authorization.verifier,
      expectedState: authorization.state,
      expectedNonce: authorization.nonce,
    });
    const restore = landThenTimeOut();
    let body: Record<string, unknown>;
    try {
      const response = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token! });
      body = (await response.json()) as Record<string, unknown>;
      expect(response.status).toBe(200);
    } finally {
      restore();
    }
    // What it answered was stored: the new refresh token works.
    const next = await tokenRequest({ grant_type: 'refresh_token', refresh_token: body.refresh_token as string });
    expect(next.status).toBe(200);
  });

  it('answers 503 when the read-back fails too: nothing known, nothing claimed as done', async () => {
    const authorization = await pkceAuthorization(config, { redirect_uri: redirectUri, scope: 'openid offline_access', prompt: 'consent' });
    const tokens = await client.authorizationCodeGrant(config, await codeFor(authorization), {
      pkceCodeVerifier: authorization.verifier,
      expectedState: authorization.state,
      expectedNonce: authorization.nonce,
    });
    const store = server.ctx.store;
    const get = store.get;
    const restore = landThenTimeOut();
    store.get = async (key: string) => {
      if (key.startsWith('oidc:consumed:')) throw new StoreUnavailableError('still down (test)');
      return get.call(store, key);
    };
    try {
      const response = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token! });
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({ error: 'temporarily_unavailable' });
    } finally {
      restore();
      store.get = get;
    }
  });
});
