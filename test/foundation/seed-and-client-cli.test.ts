import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeOperatorRole } from '../../src/admin/operators.repository.ts';
import { sealClientSecret } from '../../src/oidc/client-secret.ts';
import { rotateClientSecret, updateClient } from '../../src/oidc/clients.ts';
import { seedDemo } from '../../seeds/demo.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createTestContext, type TestContext } from '../helpers/context.ts';
import { npmRun as runScript } from '../helpers/npm-run.ts';

async function storedClient(ctx: TestContext, clientId: string): Promise<Record<string, any>> {
  const row = await ctx.db('oidc_clients').where({ client_id: clientId }).first('metadata');
  return typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata;
}

async function accountId(ctx: TestContext, email: string): Promise<string> {
  return (await ctx.db('accounts').where({ email }).first('id')).id;
}

describe('seeding the demo data on every start never undoes a change', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
    expect(await seedDemo(ctx)).toBe(true);
  });
  afterAll(() => ctx?.dispose());

  it('keeps what the client CLI, the operator CLI, the console and the account owner changed', async () => {
    const rotated = await rotateClientSecret(ctx.db, 'demo-app');
    await updateClient(ctx.db, 'demo-spa', { client_name: 'Renamed SPA', post_logout_redirect_uris: [] });
    expect(await revokeOperatorRole(ctx.db, await accountId(ctx, 'operator@example.com'))).toBe('admin');
    const acme = (await ctx.db('tenants').where({ slug: 'acme' }).first('id')).id;
    await ctx.db('tenants').where({ id: acme }).update({ name: 'Acme Renamed' });
    await ctx.db('tenant_settings').where({ tenant_id: acme, key: 'sms_credits' }).update({ value: JSON.stringify(42) });
    const twofactors = await accountId(ctx, 'twofactors@example.com');
    const [firstTotp] = await ctx.db('credentials').where({ account_id: twofactors, type: 'totp' }).orderBy('created_at').pluck('id');
    await ctx.db('credentials').where({ id: firstTotp }).delete();
    await ctx.db('accounts').where({ email: 'user@example.com' }).update({ name: 'Ulla Renamed' });

    expect(await seedDemo(ctx)).toBe(false);

    expect((await storedClient(ctx, 'demo-app')).client_secret).toBe('metadata' in rotated ? sealClientSecret(String(rotated.metadata.client_secret)) : undefined);
    expect(await storedClient(ctx, 'demo-spa')).toMatchObject({ client_name: 'Renamed SPA', post_logout_redirect_uris: [] });
    expect(await ctx.db('operator_roles').pluck('role')).toEqual([]);
    expect((await ctx.db('tenants').where({ id: acme }).first('name')).name).toBe('Acme Renamed');
    const credits = await ctx.db('tenant_settings').where({ tenant_id: acme, key: 'sms_credits' }).first('value');
    expect(typeof credits.value === 'string' ? JSON.parse(credits.value) : credits.value).toBe(42);
    expect(await ctx.db('credentials').where({ account_id: twofactors, type: 'totp' }).pluck('id')).toHaveLength(1);
    expect((await ctx.db('accounts').where({ email: 'user@example.com' }).first('name')).name).toBe('Ulla Renamed');
  });

  it('creates a demo client that is missing, with its documented settings', async () => {
    await ctx.db('oidc_clients').where({ client_id: 'demo-app' }).delete();
    expect(await seedDemo(ctx)).toBe(true);
    expect(await storedClient(ctx, 'demo-app')).toMatchObject({ client_secret: sealClientSecret('demo-app-secret'), redirect_uris: ['http://localhost:8080/callback'] });
  });
});

describe('seeding a database that holds part of the demo data', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(() => ctx?.dispose());

  it('adds what is missing and keeps what is there', async () => {
    await ctx.db('tenants').insert({ name: 'Acme (ours)', slug: 'acme', url: 'http://localhost:8080/acme' });
    await ctx.db('accounts').insert({ email: 'user@example.com', name: 'Ulla Ours', is_user: true, is_stakeholder: false });

    expect(await seedDemo(ctx)).toBe(true);

    expect(await ctx.db('tenants').orderBy('slug').pluck('name')).toEqual(['Acme (ours)', 'Nordic Talent', 'Old Staffing']);
    expect(await ctx.db('accounts').pluck('email')).toHaveLength(7);
    expect((await ctx.db('accounts').where({ email: 'user@example.com' }).first('name')).name).toBe('Ulla Ours');
    const ulla = await accountId(ctx, 'user@example.com');
    expect(await ctx.db('credentials').where({ account_id: ulla }).pluck('id')).toEqual([]);
    // The demo operator, created now, gets its access to the tenant that was already there.
    const operatorAccess = await ctx.db('tenant_access as ta').join('tenants as t', 't.id', 'ta.tenant_id').where({ 'ta.account_id': await accountId(ctx, 'operator@example.com') }).pluck('t.slug');
    expect(operatorAccess).toEqual(['acme']);
  });
});

describe('the athena demo client under ATHENA_URL', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
    await seedDemo(ctx);
  });
  afterAll(() => ctx?.dispose());

  const withAthena = (athenaUrl: string | undefined, logger: Logger = ctx.logger) => ({ ...ctx, logger, config: { ...ctx.config, athenaUrl } });

  it.each([
    [undefined, 'http://localhost:4000/callback', 'http://localhost:4000/'],
    ['http://localhost:4000', 'http://localhost:4000/callback', 'http://localhost:4000/'],
    ['http://localhost:4000/', 'http://localhost:4000/callback', 'http://localhost:4000/'],
    ['https://portal.example.com/athena', 'https://portal.example.com/athena/callback', 'https://portal.example.com/athena/'],
    ['https://portal.example.com/athena/', 'https://portal.example.com/athena/callback', 'https://portal.example.com/athena/'],
  ])('ATHENA_URL=%s registers the redirect URI %s and the post-logout URI %s', async (athenaUrl, redirect, postLogout) => {
    await ctx.db('oidc_clients').where({ client_id: 'athena' }).delete();
    await seedDemo(withAthena(athenaUrl));
    expect(await storedClient(ctx, 'athena')).toMatchObject({ redirect_uris: [redirect], post_logout_redirect_uris: [postLogout] });
  });

  it('keeps a registered athena client when ATHENA_URL changes, and says how to change it', async () => {
    await ctx.db('oidc_clients').where({ client_id: 'athena' }).delete();
    await seedDemo(withAthena(undefined));
    const warnings: string[] = [];
    const logger = { info: () => {}, warn: (_fields: unknown, message: string) => warnings.push(message) } as unknown as Logger;

    await seedDemo(withAthena('https://athena.example.com', logger));

    expect(await storedClient(ctx, 'athena')).toMatchObject({ redirect_uris: ['http://localhost:4000/callback'] });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('npm run client -- update athena --redirect https://athena.example.com/callback --logout https://athena.example.com/');
  });
});

describe('a relying party after `rotate-secret demo-app` and a restart', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    await seedDemo(t.ctx);
  });
  afterAll(() => t?.close());

  const tokenCall = (secret: string) =>
    request(t.server)
      .post('/oauth2/token')
      .auth('demo-app', secret)
      .type('form')
      .send({ grant_type: 'authorization_code', code: 'no-such-code', redirect_uri: 'http://localhost:8080/callback', code_verifier: 'v'.repeat(43) });

  it('authenticates with the new secret, and no longer with demo-app-secret', async () => {
    const rotated = await rotateClientSecret(t.ctx.db, 'demo-app');
    const secret = 'metadata' in rotated ? String(rotated.metadata.client_secret) : '';
    await seedDemo(t.ctx); // what `npm start` does with SEED_DEMO

    const withNew = await tokenCall(secret);
    expect([withNew.status, withNew.body.error]).toEqual([400, 'invalid_grant']);
    const withDemo = await tokenCall('demo-app-secret');
    expect([withDemo.status, withDemo.body.error]).toEqual([401, 'invalid_client']);
  });
});

const dataDir = mkdtempSync(join(tmpdir(), 'nyckel-client-cli-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const npmRun = (script: string, args: string[]) => runScript(dataDir, script, args);

// Spawning npm costs seconds on a slow machine: one spelling of help per tool, and the DATABASE_URL
// run, which would only repeat them, skips them.
describe.skipIf(process.env.DATABASE_URL)('help of the command-line tools', () => {
  it.each([
    ['client', ['--help'], ['add <client_id>', 'update <client_id>', '--no-logout', '--login-uri <uri>', '--no-login-uri', 'rotate-secret <client_id>', 'list']],
    ['client', ['add', 'x', '-h'], ['add <client_id>']],
    ['keys', ['help'], ['rotate [--now]']],
    ['operator', ['--help'], ['grant <email>', 'revoke <email>', 'list']],
  ])('npm run %s -- %j prints the usage and exits 0', async (script, args, parts) => {
    const run = await npmRun(script, args);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toMatch(/^usage: npm run /);
    for (const part of parts) expect(run.stdout).toContain(part);
  }, 60_000);
});

// The CLI runs on the embedded database (PGlite on disk, slow under load): skipped on the
// DATABASE_URL run, which would only repeat it.
describe.skipIf(process.env.DATABASE_URL)('npm run client: options and listing', () => {
  it('refuses a secret for a public client and stores nothing', async () => {
    const refused = await npmRun('client', ['add', 'cli-pub', '--public', '--secret', 'a-given-secret-0123456789', '--redirect', 'http://localhost:9996/cb']);
    expect(refused.code).toBe(64);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/^nyckel: a public client \(--public\) has no secret: it authenticates with PKCE alone\./);
    expect((await npmRun('client', ['list'])).stdout).not.toContain('cli-pub');
    // A refusal names the option to type, not the metadata field behind it.
    const bare = await npmRun('client', ['add', 'cli-bare']);
    expect([bare.code, bare.stderr.trim()]).toEqual([64, 'nyckel: --redirect: give at least one']);
    const fragment = await npmRun('client', ['add', 'cli-bare', '--redirect', 'http://localhost:9996/cb', '--redirect', 'http://localhost:9996/cb#x']);
    expect([fragment.code, fragment.stderr]).toEqual([64, expect.stringMatching(/^nyckel: --redirect \(2nd\): /)]);
  }, 120_000);

  it('update --no-logout empties the post-logout list; list shows name, type, ID token algorithm and both lists', async () => {
    const added = await npmRun('client', ['add', 'cli-list', '--name', 'Listed app', '--alg', 'RS256', '--redirect', 'http://localhost:9995/cb', '--redirect', 'http://localhost:9995/cb2', '--logout', 'http://localhost:9995/']);
    expect(added.code, added.stderr).toBe(0);
    expect((await npmRun('client', ['list'])).stdout).toContain(
      [
        'cli-list',
        '  name          Listed app',
        '  type          confidential (client_secret_basic)',
        '  ID token alg  RS256',
        '  redirect      http://localhost:9995/cb',
        '                http://localhost:9995/cb2',
        '  post-logout   http://localhost:9995/',
      ].join('\n'),
    );

    const both = await npmRun('client', ['update', 'cli-list', '--no-logout', '--logout', 'http://localhost:9995/']);
    expect([both.code, both.stderr.split('\n')[0]]).toEqual([64, 'nyckel: --logout and --no-logout exclude each other']);
    const emptied = await npmRun('client', ['update', 'cli-list', '--no-logout']);
    expect(emptied.code, emptied.stderr).toBe(0);
    const listed = (await npmRun('client', ['list'])).stdout;
    expect(listed).toContain('  post-logout   (none)');
    expect(listed).toContain('  redirect      http://localhost:9995/cb\n                http://localhost:9995/cb2\n');
  }, 180_000);

  it('add and update set the initiate_login_uri (--login-uri), update --no-login-uri removes it; list shows it', async () => {
    const added = await npmRun('client', ['add', 'cli-login', '--public', '--redirect', 'http://localhost:9994/cb', '--login-uri', 'https://app.example.com/start']);
    expect(added.code, added.stderr).toBe(0);
    const block = (loginUri: string) =>
      ['cli-login', '  name          cli-login', '  type          public (PKCE only)', '  ID token alg  ES256', '  redirect      http://localhost:9994/cb', '  post-logout   (none)', `  login URI     ${loginUri}`].join('\n');
    expect((await npmRun('client', ['list'])).stdout).toContain(block('https://app.example.com/start'));

    const moved = await npmRun('client', ['update', 'cli-login', '--login-uri', 'https://app.example.com/again?from=nyckel']);
    expect(moved.code, moved.stderr).toBe(0);
    const both = await npmRun('client', ['update', 'cli-login', '--no-login-uri', '--login-uri', 'https://app.example.com/start']);
    expect([both.code, both.stderr.split('\n')[0]]).toEqual([64, 'nyckel: --login-uri and --no-login-uri exclude each other']);
    const refused = await npmRun('client', ['update', 'cli-login', '--login-uri', 'http://localhost:9994/start']);
    expect([refused.code, refused.stderr.trim()]).toEqual([64, 'nyckel: --login-uri: "http://localhost:9994/start" must be an https URL, on localhost too']);
    expect((await npmRun('client', ['list'])).stdout).toContain(block('https://app.example.com/again?from=nyckel'));

    const removed = await npmRun('client', ['update', 'cli-login', '--no-login-uri']);
    expect(removed.code, removed.stderr).toBe(0);
    expect((await npmRun('client', ['list'])).stdout).toContain(block('(none)'));
  }, 180_000);

  it.each([
    ['/start', 'is not a URL'],
    ['https://app.example.com/start#again', 'must not contain a fragment (#)'],
    ['javascript:alert(1)', 'must be an https URL, on localhost too'],
    ['http://app.example.com/start', 'must be an https URL, on localhost too'],
  ])('add refuses --login-uri %s: %s', async (uri, problem) => {
    const refused = await npmRun('client', ['add', 'cli-login-bad', '--redirect', 'http://localhost:9993/cb', '--login-uri', uri]);
    expect([refused.code, refused.stdout, refused.stderr.trim()]).toEqual([64, '', `nyckel: --login-uri: "${uri}" ${problem}`]);
  }, 60_000);
});
