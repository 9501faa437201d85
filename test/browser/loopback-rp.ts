import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as client from 'openid-client';
import type { Db } from '../../src/db/knex.ts';
import { upsertClient } from '../../src/oidc/clients.ts';

/** A relying party on loopback, started by startLoopbackRp. */
export interface LoopbackRp {
  /** Its origin: `${base}/start?client=<id>` starts a sign-in, `${base}/callback` ends it. */
  base: string;
  close: () => Promise<void>;
}

/**
 * A relying party as an app would write it with openid-client, for the browser journeys that go
 * through an application's request: `/start?client=<id>` sends the browser to Nyckel (code, PKCE
 * S256, state, nonce), `/callback` shows the email from the validated ID token (`#email`). Each
 * client in `clientIds` is registered with the callback as its redirect URI. (relying-party.test.ts
 * keeps its own, written out in full as the example an application's developer reads.)
 */
export async function startLoopbackRp(server: { ctx: { db: Db }; issuer: string }, clientIds: readonly string[]): Promise<LoopbackRp> {
  const rp = createServer();
  await new Promise<void>((resolve) => rp.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(rp.address() as AddressInfo).port}`;
  const configs = new Map<string, client.Configuration>();
  for (const clientId of clientIds) {
    const secret = `${clientId}-secret-0123456789`;
    await upsertClient(server.ctx.db, { client_id: clientId, redirect_uris: [`${base}/callback`], client_secret: secret });
    configs.set(clientId, await client.discovery(new URL(server.issuer), clientId, secret, undefined, { execute: [client.allowInsecureRequests] }));
  }
  const pending = new Map<string, { clientId: string; verifier: string; nonce: string }>();
  rp.on('request', async (req, res) => {
    const url = new URL(req.url ?? '/', base);
    try {
      if (url.pathname === '/start') {
        const clientId = url.searchParams.get('client') ?? clientIds[0]!;
        const sent = { clientId, verifier: client.randomPKCECodeVerifier(), nonce: client.randomNonce() };
        const state = client.randomState();
        pending.set(state, sent);
        const authorize = client.buildAuthorizationUrl(configs.get(clientId)!, {
          redirect_uri: `${base}/callback`,
          scope: 'openid email',
          code_challenge: await client.calculatePKCECodeChallenge(sent.verifier),
          code_challenge_method: 'S256',
          state,
          nonce: sent.nonce,
        });
        res.writeHead(302, { location: authorize.href }).end();
      } else if (url.pathname === '/callback') {
        const state = url.searchParams.get('state') ?? '';
        const sent = pending.get(state)!;
        const tokens = await client.authorizationCodeGrant(configs.get(sent.clientId)!, url, {
          pkceCodeVerifier: sent.verifier,
          expectedState: state,
          expectedNonce: sent.nonce,
        });
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<h1>Signed in</h1><p id="email">${String(tokens.claims()?.email)}</p>`);
      } else res.writeHead(404).end();
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`RP error: ${(error as Error).message}`);
    }
  });
  return {
    base,
    close: async () => {
      rp.closeAllConnections();
      await new Promise((resolve) => rp.close(resolve));
    },
  };
}
