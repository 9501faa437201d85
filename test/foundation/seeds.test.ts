import { verify } from '@node-rs/argon2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoPassword, demoTotpSecrets, seedDemo } from '../../seeds/demo.ts';
import { sealClientSecret } from '../../src/oidc/client-secret.ts';
import { createTestContext, type TestContext } from '../helpers/context.ts';

/** The demo accounts the README documents, with what each one demonstrates. */
const demoAccounts = [
  'operator@example.com',
  'user@example.com',
  'stakeholder@example.com',
  'newcomer@example.com',
  'migrated@example.com',
  'mfa@example.com',
  'twofactors@example.com',
];
const demoTenants = ['acme', 'nordictalent', 'oldstaffing'];
const demoClients = ['athena', 'demo-app', 'demo-spa'];

const countedTables = ['accounts', 'credentials', 'tenants', 'tenant_access', 'tenant_settings', 'oidc_clients', 'operator_roles'];

describe('seedDemo on a fresh database', () => {
  let ctx: TestContext;

  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(() => ctx?.dispose());

  async function counts(): Promise<Record<string, number>> {
    const result: Record<string, number> = {};
    for (const table of countedTables) {
      const [row] = await ctx.db(table).count({ count: '*' });
      result[table] = Number(row?.count);
    }
    return result;
  }

  async function credentialsOf(email: string, type: string): Promise<{ secret: string | null }[]> {
    return ctx.db('credentials as c')
      .join('accounts as a', 'a.id', 'c.account_id')
      .where({ 'a.email': email, 'c.type': type })
      .orderBy('c.created_at')
      .select('c.secret');
  }

  it('creates the demo accounts, tenants and clients', async () => {
    expect(await seedDemo(ctx)).toBe(true);
    const accounts = await ctx.db('accounts').orderBy('email').pluck('email');
    expect(accounts).toEqual([...demoAccounts].sort());
    expect(await ctx.db('tenants').orderBy('slug').pluck('slug')).toEqual([...demoTenants].sort());
    expect(await ctx.db('oidc_clients').orderBy('client_id').pluck('client_id')).toEqual(demoClients);
  });

  it('is idempotent: a second run changes nothing and says so', async () => {
    const before = await counts();
    expect(before.accounts).toBe(demoAccounts.length);
    expect(await seedDemo(ctx)).toBe(false);
    expect(await counts()).toEqual(before);
  });

  it('gives the demo accounts the traits the README promises', async () => {
    const byEmail = new Map(
      (await ctx.db('accounts').select('email', 'is_user', 'is_stakeholder', 'password_reset_required')).map((a) => [a.email, a]),
    );
    expect(byEmail.get('stakeholder@example.com')).toMatchObject({ is_user: false, is_stakeholder: true });
    expect(byEmail.get('migrated@example.com')).toMatchObject({ password_reset_required: true });
    expect(byEmail.get('user@example.com')).toMatchObject({ is_user: true, password_reset_required: false });
    expect(await credentialsOf('newcomer@example.com', 'password')).toEqual([]);
    const operator = await ctx.db('operator_roles as o').join('accounts as a', 'a.id', 'o.account_id').select('a.email', 'o.role');
    expect(operator).toEqual([{ email: 'operator@example.com', role: 'admin' }]);
  });

  it('stores the demo password as an argon2id hash that verifies', async () => {
    const [password] = await credentialsOf('user@example.com', 'password');
    expect(password?.secret).toMatch(/^\$argon2id\$/);
    expect(await verify(password!.secret!, demoPassword)).toBe(true);
    expect(await verify(password!.secret!, 'wrong-password')).toBe(false);
  });

  it('stores TOTP secrets sealed, openable with the configured key', async () => {
    for (const [email, secrets] of Object.entries(demoTotpSecrets)) {
      const stored = await credentialsOf(email, 'totp');
      expect(stored).toHaveLength(secrets.length);
      for (const { secret } of stored) {
        expect(secret).not.toBeNull();
        for (const plain of secrets) expect(secret).not.toContain(plain);
      }
      expect(stored.map(({ secret }) => ctx.secretBox.open(secret!)).sort()).toEqual([...secrets].sort());
    }
  });

  it('registers demo-app as a confidential client and demo-spa as a public PKCE client', async () => {
    const rows = await ctx.db('oidc_clients').select('client_id', 'metadata');
    const metadata = Object.fromEntries(
      rows.map((row) => [row.client_id, typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata]),
    );
    expect(metadata['demo-app']).toMatchObject({
      // Kept as its hash (src/oidc/client-secret.ts); the README's demo-app-secret signs in.
      client_secret: sealClientSecret('demo-app-secret'),
      redirect_uris: ['http://localhost:8080/callback'],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    expect(metadata['demo-spa']).toMatchObject({ redirect_uris: ['http://localhost:5173/callback'], token_endpoint_auth_method: 'none' });
    expect(metadata['demo-spa'].client_secret).toBeUndefined();
    expect(metadata.athena.redirect_uris).toEqual(['http://localhost:4000/callback']);
  });

  it('refuses to run in production', async () => {
    await expect(seedDemo({ ...ctx, config: { ...ctx.config, env: 'production' } })).rejects.toThrow(/production/);
  });
});
