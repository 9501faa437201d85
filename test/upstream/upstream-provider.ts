import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Provider, { type Configuration } from 'oidc-provider';
import request from 'supertest';

/**
 * A real upstream OpenID provider on loopback for the tests: a second oidc-provider instance that
 * issues Google-shaped (issuer at the origin) or Microsoft-shaped (tenant issuer
 * `/{tid}/v2.0`, `tid` claim, no `email_verified` unless told) ID tokens. Its interaction is
 * minimal: the next GET /interaction/:uid signs in the account queued with `next()` (login and a
 * consent Grant at once), or finishes with the queued error (cancel, provider failure). Its token
 * endpoint can be made slow or drop the connection for one request (breakNextToken).
 */
export interface UpstreamAccount {
  sub: string;
  email?: string;
  /** Any value: the claim is released as given (omit it to leave it out). */
  email_verified?: unknown;
  /** Google's Workspace domain of the account. */
  hd?: string;
  name?: string;
}

export type UpstreamBehaviour = { account: UpstreamAccount } | { error: string; description?: string };

/** A token endpoint in trouble: it answers only after `delayMs`, or drops the connection unanswered. */
export type TokenFault = { delayMs: number } | 'reset';

export interface TestUpstream {
  kind: 'google' | 'microsoft';
  issuer: string;
  origin: string;
  clientId: string;
  clientSecret: string;
  tenantId: string | null;
  /** Env for Nyckel: GOOGLE_* or MICROSOFT_* pointing here. */
  env: Record<string, string>;
  /** What the next interaction does. */
  next(behaviour: UpstreamBehaviour): void;
  /** What the next token request meets. */
  breakNextToken(fault: TokenFault): void;
  /**
   * From now on its JWK Set publishes another key under the signing key's id, as a forged token
   * endpoint answer would look: the ID tokens it signs no longer verify against it.
   */
  forgeKeys(): void;
  close(): Promise<void>;
}

export interface UpstreamOptions {
  kind: 'google' | 'microsoft';
  /** Nyckel's public origin: the registered redirect URI is <origin>/auth/oauth/callback/<kind>. */
  nyckelOrigin: string;
  tenantId?: string;
  /** Listen on this port (when Nyckel must know the issuer before the upstream starts). */
  port?: number;
  clientId?: string;
  clientSecret?: string;
}

export async function startUpstream(options: UpstreamOptions): Promise<TestUpstream> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const tenantId = options.kind === 'microsoft' ? (options.tenantId ?? '9b1c1a52-6f6e-4a5e-8f0e-2b6f0c1d2e3f') : null;
  const mount = tenantId ? `/${tenantId}/v2.0` : '';
  const issuer = `${origin}${mount}`;
  const clientId = options.clientId ?? `nyckel-${options.kind}-${randomBytes(4).toString('hex')}`;
  const clientSecret = options.clientSecret ?? randomBytes(24).toString('base64url');

  const accounts = new Map<string, UpstreamAccount>();
  const queue: UpstreamBehaviour[] = [];
  const tokenFaults: TokenFault[] = [];
  const delayed = new Set<NodeJS.Timeout>();
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'upstream-1', use: 'sig', alg: 'RS256' };
  /** Set by forgeKeys(): the JWK Set then publishes another key under the signing key's id. */
  let forged: object | null = null;

  const configuration: Configuration = {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [`${options.nyckelOrigin}/auth/oauth/callback/${options.kind}`],
        token_endpoint_auth_method: 'client_secret_post',
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [jwk as never] },
    findAccount: (_ctx, sub) => {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: () => ({ ...account, ...(tenantId ? { tid: tenantId } : {}) }) as never };
    },
    claims: { openid: ['sub', 'tid', 'hd'], email: ['email', 'email_verified'], profile: ['name'] },
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    pkce: { required: () => true },
  };
  const provider = new Provider(issuer, configuration);

  const app = express();
  app.get('/interaction/:uid', async (req, res, next) => {
    try {
      const details = await provider.interactionDetails(req, res);
      const behaviour = queue.shift() ?? { error: 'access_denied', description: 'no account queued for this test' };
      if ('error' in behaviour) {
        await provider.interactionFinished(req, res, { error: behaviour.error, error_description: behaviour.description ?? behaviour.error });
        return;
      }
      accounts.set(behaviour.account.sub, behaviour.account);
      const grant = new provider.Grant({ accountId: behaviour.account.sub, clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope));
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { login: { accountId: behaviour.account.sub }, consent: { grantId } });
    } catch (error) {
      next(error);
    }
  });
  app.post(`${mount}/token`, (req, _res, next) => {
    const fault = tokenFaults.shift();
    if (!fault) {
      next();
    } else if (fault === 'reset') {
      req.socket.destroy();
    } else {
      const timer = setTimeout(() => {
        delayed.delete(timer);
        next();
      }, fault.delayMs);
      delayed.add(timer);
    }
  });
  app.get(`${mount}/jwks`, (_req, res, next) => (forged ? res.json({ keys: [forged] }) : next()));
  app.use(mount || '/', provider.callback());
  server.on('request', app);

  const prefix = options.kind.toUpperCase();
  return {
    kind: options.kind,
    issuer,
    origin,
    clientId,
    clientSecret,
    tenantId,
    env: {
      [`${prefix}_CLIENT_ID`]: clientId,
      [`${prefix}_CLIENT_SECRET`]: clientSecret,
      [`${prefix}_ISSUER`]: issuer,
    },
    next: (behaviour) => queue.push(behaviour),
    breakNextToken: (fault) => tokenFaults.push(fault),
    forgeKeys() {
      const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      forged = { ...publicKey.export({ format: 'jwk' }), kid: jwk.kid, use: 'sig', alg: 'RS256' };
    },
    async close() {
      for (const timer of delayed) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * A person at the provider: follows the redirects from the authorization URL through the
 * interaction and back, with a fresh upstream cookie jar (no earlier upstream session), and
 * answers the URL the provider sends the browser to (Nyckel's callback).
 */
export async function visitUpstream(upstream: TestUpstream, authorizationUrl: string): Promise<URL> {
  const agent = request.agent(upstream.origin);
  let url = new URL(authorizationUrl);
  for (let hop = 0; hop < 10; hop += 1) {
    if (url.origin !== upstream.origin) return url;
    const res = await agent.get(`${url.pathname}${url.search}`).redirects(0);
    const location = res.headers.location as string | undefined;
    if (res.status < 300 || res.status >= 400 || !location) {
      throw new Error(`upstream answered ${res.status} at ${url.pathname}: ${res.text.slice(0, 300)}`);
    }
    url = new URL(location, url);
  }
  throw new Error('too many upstream redirects');
}
