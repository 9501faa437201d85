import { randomBytes } from 'node:crypto';
import type Provider from 'oidc-provider';
import { z } from 'zod';
import type { Db } from '../db/knex.ts';
import { sealClientSecret } from './client-secret.ts';

/**
 * Why oidc-provider would refuse `uri` as a redirect or post-logout URI of a web client, or
 * undefined. It checks a client's metadata each time it loads it (client_schema.js): a URI it
 * refuses makes every call of that client fail with `invalid_redirect_uri`, the token endpoint
 * included, so it is refused here, at registration. Web clients: http or https (any host: the
 * library asks https only of implicit-flow clients, which Nyckel has none of), no fragment. A user
 * name or password in a redirect URI is refused too: the library lets it through, but it has no
 * use there and would put a credential into every authorization URL.
 */
export function redirectUriProblem(uri: string): string | undefined {
  const parsed = URL.parse(uri);
  if (!parsed) return 'is not a URL';
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must be an http or https URL';
  if (parsed.href.includes('#')) return 'must not contain a fragment (#)';
  if (parsed.username || parsed.password) return 'must not contain a user name or password';
  return undefined;
}

/**
 * Why `uri` cannot be a client's `initiate_login_uri` (OpenID Connect Core 4, third-party initiated
 * login: where the app starts its own sign-in), or undefined. https only, localhost included:
 * OpenID Connect Dynamic Client Registration 2 asks it, and oidc-provider refuses a client whose
 * initiate_login_uri is anything else (client_schema.js, HTTPS_URI), which would fail every call
 * of that client. No fragment or credentials, as for redirect URIs: Nyckel sends browsers there
 * with its own query (iss, login_hint).
 */
export function initiateLoginUriProblem(uri: string): string | undefined {
  const protocol = URL.parse(uri)?.protocol;
  if (protocol && protocol !== 'https:') return 'must be an https URL, on localhost too';
  return redirectUriProblem(uri);
}

const checkedUri = (problemOf: (uri: string) => string | undefined) =>
  z.string().superRefine((uri, ctx) => {
    const problem = problemOf(uri);
    if (problem) ctx.addIssue({ code: 'custom', message: `"${uri}" ${problem}` });
  });
const redirectUri = checkedUri(redirectUriProblem);

/** What an operator may register; everything else takes the secure defaults of the provider. */
export const clientInputSchema = z.object({
  client_id: z.string().regex(/^[a-z0-9][a-z0-9_-]{1,63}$/, 'lowercase letters, digits, - and _'),
  client_name: z.string().min(1).max(200).optional(),
  redirect_uris: z.array(redirectUri).min(1),
  post_logout_redirect_uris: z.array(redirectUri).default([]),
  /** Public clients (single-page apps) authenticate with PKCE alone. */
  public: z.boolean().default(false),
  /** Given secrets (the demo's) may be short; `npm run client` generates 256-bit ones by default. */
  client_secret: z.string().min(12).optional(),
  id_token_signed_response_alg: z.enum(['ES256', 'RS256']).default('ES256'),
  initiate_login_uri: checkedUri(initiateLoginUriProblem).optional(),
});

export type ClientInput = z.input<typeof clientInputSchema>;

/** What `updateClient` may change; whatever is absent keeps its stored value, and a null initiate_login_uri removes it. */
export type ClientChanges = Partial<Pick<ClientInput, 'client_name' | 'redirect_uris' | 'post_logout_redirect_uris' | 'id_token_signed_response_alg'>> & {
  initiate_login_uri?: string | null;
};

export function clientMetadata(input: ClientInput): Record<string, unknown> {
  const parsed = clientInputSchema.parse(input);
  const base = {
    client_id: parsed.client_id,
    client_name: parsed.client_name ?? parsed.client_id,
    redirect_uris: parsed.redirect_uris,
    post_logout_redirect_uris: parsed.post_logout_redirect_uris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    id_token_signed_response_alg: parsed.id_token_signed_response_alg,
    ...(parsed.initiate_login_uri === undefined ? {} : { initiate_login_uri: parsed.initiate_login_uri }),
  };
  return parsed.public
    ? { ...base, token_endpoint_auth_method: 'none' }
    : {
        ...base,
        token_endpoint_auth_method: 'client_secret_basic',
        client_secret: parsed.client_secret ?? newClientSecret(),
      };
}

function newClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** The metadata as the table keeps it: the secret as its hash (client-secret.ts), never as given. */
function storedForm(metadata: Record<string, unknown>): string {
  const secret = metadata.client_secret;
  return JSON.stringify(typeof secret === 'string' ? { ...metadata, client_secret: sealClientSecret(secret) } : metadata);
}

/**
 * Registers the client or replaces it whole (a new secret unless one is given): for the demo seed
 * and tests, which state every setting. Operators use insertClient and updateClient. Answers the
 * metadata with the secret as given or made; the table keeps its hash.
 */
export async function upsertClient(db: Db, input: ClientInput): Promise<Record<string, unknown>> {
  const metadata = clientMetadata(input);
  await db('oidc_clients')
    .insert({ client_id: metadata.client_id, metadata: storedForm(metadata) })
    .onConflict('client_id')
    .merge({ metadata: storedForm(metadata), updated_at: db.fn.now() });
  return metadata;
}

/** A change of a stored client, or why there was none. */
export type ClientWrite = { metadata: Record<string, unknown> } | { refused: 'exists' | 'unknown' | 'public' };

/**
 * Registers a new client. An existing client_id is refused, never overwritten: that would give a
 * deployed relying party a new secret and drop the settings not given again. Answers the secret
 * as made (to be shown once); the table keeps its hash.
 */
export async function insertClient(db: Db, input: ClientInput): Promise<ClientWrite> {
  const metadata = clientMetadata(input);
  const inserted = await db('oidc_clients')
    .insert({ client_id: metadata.client_id, metadata: storedForm(metadata) })
    .onConflict('client_id')
    .ignore()
    .returning('client_id');
  return inserted.length ? { metadata } : { refused: 'exists' };
}

/** Changes only the settings given; the secret, the auth method and the rest stay as stored. */
export async function updateClient(db: Db, clientId: string, changes: ClientChanges): Promise<ClientWrite> {
  const given = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
  return rewriteClient(db, clientId, (stored) => {
    const input = { ...storedInput(stored), ...given };
    return { metadata: clientMetadata({ ...input, initiate_login_uri: input.initiate_login_uri ?? undefined }) };
  });
}

/** A new generated secret for a confidential client, answered once; the old one stops working. */
export async function rotateClientSecret(db: Db, clientId: string): Promise<ClientWrite> {
  return rewriteClient(db, clientId, (stored) =>
    stored.token_endpoint_auth_method === 'none'
      ? { refused: 'public' }
      : { metadata: clientMetadata({ ...storedInput(stored), client_secret: newClientSecret() }) },
  );
}

/** Reads, changes and writes one client's metadata in a transaction (row locked against a concurrent change). */
async function rewriteClient(db: Db, clientId: string, change: (stored: StoredMetadata) => ClientWrite): Promise<ClientWrite> {
  return db.transaction(async (trx) => {
    const row = await trx('oidc_clients').where({ client_id: clientId }).forUpdate().first('metadata');
    if (!row) return { refused: 'unknown' };
    const result = change(typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata);
    if ('metadata' in result) {
      await trx('oidc_clients')
        .where({ client_id: clientId })
        .update({ metadata: storedForm(result.metadata), updated_at: trx.fn.now() });
    }
    return result;
  });
}

interface StoredMetadata {
  client_id: string;
  client_name?: string;
  redirect_uris: string[];
  post_logout_redirect_uris?: string[];
  token_endpoint_auth_method: string;
  /** Its hash (client-secret.ts); kept as it is by updates. */
  client_secret?: string;
  id_token_signed_response_alg?: 'ES256' | 'RS256';
  initiate_login_uri?: string;
}

/** The input that gives the stored metadata again (clientMetadata wrote it). */
function storedInput(stored: StoredMetadata): ClientInput {
  return {
    client_id: stored.client_id,
    client_name: stored.client_name,
    redirect_uris: stored.redirect_uris,
    post_logout_redirect_uris: stored.post_logout_redirect_uris,
    public: stored.token_endpoint_auth_method === 'none',
    client_secret: stored.client_secret,
    id_token_signed_response_alg: stored.id_token_signed_response_alg,
    initiate_login_uri: stored.initiate_login_uri,
  };
}

/**
 * oidc-provider's Client model read from the oidc_clients table. Clients are registered by
 * operators (npm run client), not dynamically, so only `find` does anything.
 */
/**
 * How long a client's metadata is reused before it is read again. oidc-provider looks the client up
 * on every token, userinfo and introspection call; a change by `npm run client` takes effect on
 * every instance within this time.
 */
export const clientCacheMs = 30_000;

export function createClientAdapter(db: Db, now: () => number = Date.now) {
  const cache = new Map<string, { metadata: object; until: number }>();
  return class ClientAdapter {
    /** The metadata find() would answer from its cache right now, without reading it: the same object until it is read again. */
    static cached(id: string): object | undefined {
      const hit = cache.get(id);
      return hit && hit.until > now() ? hit.metadata : undefined;
    }

    async find(id: string) {
      // PostgreSQL text cannot hold NUL: such an id names no client (and must not become a 500).
      if (id.length > 64 || id.includes('\u0000')) return undefined;
      const cached = ClientAdapter.cached(id);
      if (cached) return cached;
      const row = await db('oidc_clients').where({ client_id: id }).first('metadata');
      const metadata = row ? (typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata) : undefined;
      // Unknown ids are not cached: a flood of made-up client ids must not grow the map.
      if (metadata) {
        if (cache.size > 1000) cache.clear();
        cache.set(id, { metadata, until: now() + clientCacheMs });
      }
      return metadata;
    }
    async upsert() {}
    async findByUid() {
      return undefined;
    }
    async findByUserCode() {
      return undefined;
    }
    async consume() {}
    async destroy() {}
    async revokeByGrantId() {}
  };
}

type ProviderClient = NonNullable<Awaited<ReturnType<Provider['Client']['find']>>>;

/**
 * oidc-provider derives a Client from its metadata on every lookup (every token, userinfo and
 * introspection request): it serialises the metadata to JSON and hashes it to find the Client it
 * built last time. While the adapter's cache holds the same metadata object, that Client is handed
 * out again without the serialising and hashing; once the metadata is read again (a changed client
 * included), the next lookup derives it as before.
 *
 * `cached` answers the adapter's cached metadata without reading it (ClientAdapter.cached).
 */
export function reuseDerivedClients(provider: Provider, cached: (id: string) => object | undefined): void {
  const find = provider.Client.find.bind(provider.Client);
  const derived = new WeakMap<object, ProviderClient>();
  provider.Client.find = async (id: string) => {
    const before = typeof id === 'string' ? cached(id) : undefined;
    const known = before && derived.get(before);
    if (known) return known;
    const client = await find(id);
    // Only when the lookup certainly used `before`: the cache still holds that very object.
    if (client && before && cached(id) === before) derived.set(before, client);
    return client;
  };
}
