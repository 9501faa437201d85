import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { RedisStore } from '../../src/store/redis-store.ts';
import { createTestContext, type TestContext } from '../helpers/context.ts';

interface Jwk {
  kid: string;
  kty: string;
  alg?: string;
  use?: string;
  d?: string;
  [member: string]: unknown;
}

/** Members of a private JWK (EC: d; RSA: d, p, q, dp, dq, qi); none may ever be published. */
const privateMembers = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

describe('the app on a fresh database and store', () => {
  let ctx: TestContext;
  let app: App;

  beforeAll(async () => {
    ctx = await createTestContext();
    app = await createApp(ctx);
  });
  afterAll(() => ctx?.dispose());

  it('answers /healthz', async () => {
    const res = await request(app.app).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('is ready when the database and the store answer', async () => {
    const res = await request(app.app).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', checks: { database: 'ok', store: 'ok' } });
  });

  it('publishes discovery for its issuer: code flow with S256 PKCE, signed ID tokens only', async () => {
    // oidc-provider derives endpoint URLs from the request's host, as a relying party would send it.
    const res = await request(app.app).get('/oauth2/.well-known/openid-configuration').set('Host', new URL(ctx.config.issuer).host);
    expect(res.status).toBe(200);
    const discovery = res.body;
    expect(discovery.issuer).toBe(ctx.config.issuer);
    expect(discovery.authorization_endpoint).toBe(`${ctx.config.issuer}/authorize`);
    expect(discovery.token_endpoint).toBe(`${ctx.config.issuer}/token`);
    expect(discovery.jwks_uri).toBe(`${ctx.config.issuer}/jwks`);
    expect(discovery.code_challenge_methods_supported).toEqual(['S256']);
    expect(discovery.response_types_supported).toEqual(['code']);
    expect(discovery.id_token_signing_alg_values_supported).toContain('ES256');
    expect(discovery.id_token_signing_alg_values_supported).not.toContain('none');
    expect(discovery.grant_types_supported).not.toContain('implicit');
  });

  it('publishes public signing keys only, ES256 and RS256', async () => {
    const res = await request(app.app).get('/oauth2/jwks');
    expect(res.status).toBe(200);
    const keys: Jwk[] = res.body.keys;
    expect(keys.map((key) => key.alg)).toEqual(expect.arrayContaining(['ES256', 'RS256']));
    for (const key of keys) {
      expect(key.kid).toEqual(expect.any(String));
      for (const member of privateMembers) expect(key, `${key.kid} publishes ${member}`).not.toHaveProperty(member);
    }
  });

  it('stores its private signing keys sealed', async () => {
    const rows: { kid: string; private_jwk: string }[] = await ctx.db('signing_keys').select('kid', 'private_jwk');
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const row of rows) {
      expect(row.private_jwk).not.toContain('"d"');
      expect(JSON.parse(ctx.secretBox.open(row.private_jwk))).toMatchObject({ kid: row.kid, d: expect.any(String) });
    }
  });

  it('keeps its signing keys: a second app on the same database publishes the same kids', async () => {
    const kids = async (subject: App) =>
      ((await request(subject.app).get('/oauth2/jwks')).body.keys as Jwk[]).map((key) => key.kid).sort();
    const second = await createApp(ctx);
    expect(await kids(second)).toEqual(await kids(app));
  });

  it('answers an unknown API path with 404 in the error shape', async () => {
    const res = await request(app.app).get('/api/nope');
    expect(res.status).toBe(404);
    expect(res.type).toBe('application/json');
    expect(res.body).toEqual({ detail: [{ type: 'not_found', msg: expect.any(String) }] });
  });

  it('answers malformed JSON to a sign-in call with 400 in the error shape, never 500', async () => {
    const res = await request(app.app)
      .post('/auth/login/start')
      .set('Content-Type', 'application/json')
      .send('{"email": ');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: [{ type: 'malformed_body', msg: expect.any(String) }] });
  });

  it('refuses a state-changing call from another origin', async () => {
    const res = await request(app.app)
      .post('/auth/login/start')
      .set('Origin', 'https://evil.example')
      .send({ email: 'user@example.com' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: [{ type: 'cross_site_request', msg: expect.any(String) }] });
  });

  it("keeps the portal's form-action CSP off /oauth2, where forms post to relying parties", async () => {
    const discovery = await request(app.app).get('/oauth2/.well-known/openid-configuration');
    expect(discovery.status).toBe(200);
    expect(discovery.headers['content-security-policy'] ?? '').not.toContain("form-action 'self'");
    const logout = await request(app.app).get('/oauth2/logout');
    expect(logout.headers['content-security-policy'] ?? '').not.toContain("form-action 'self'");
  });

  it('keeps API answers out of caches', async () => {
    const res = await request(app.app).get('/api/nope');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('is not ready when the store cannot be reached', async () => {
    // A real Redis client pointed at a port nobody listens on: the dependency genuinely fails.
    const store = new RedisStore({ url: 'redis://127.0.0.1:1', prefix: `test:${randomBytes(4).toString('hex')}:` });
    try {
      const broken = await createApp({ ...ctx, store });
      const res = await request(broken.app).get('/readyz');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: 'unavailable', checks: { database: 'ok', store: 'unavailable' } });
      // Liveness does not depend on the store: restarting the process would not help.
      expect((await request(broken.app).get('/healthz')).status).toBe(200);
    } finally {
      await store.close();
    }
  });

  // Last: it destroys the file's database connection.
  it('is not ready when the database is gone', async () => {
    await ctx.db.destroy();
    const started = Date.now();
    const res = await request(app.app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'unavailable', checks: { database: 'unavailable', store: 'ok' } });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
