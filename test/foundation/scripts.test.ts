import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sealClientSecret } from '../../src/oidc/client-secret.ts';
import { createDb } from '../../src/db/knex.ts';
import { npmRun as runScript } from '../helpers/npm-run.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'nyckel-scripts-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));


const npmRun = (script: string, args: string[]) => runScript(dataDir, script, args);

// The scripts always run on the embedded database here, so a run against DATABASE_URL would only
// repeat this (slow: PGlite on disk) file.
describe.skipIf(process.env.DATABASE_URL)('npm run client', () => {
  it('registers a confidential client, shows its generated secret once, and lists it', async () => {
    const added = await npmRun('client', ['add', 'cli-test', '--redirect', 'http://localhost:9999/callback', '--name', 'CLI test']);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('Client cli-test saved.');
    expect(added.stdout).toMatch(/^client_secret: [A-Za-z0-9_-]{43} \(shown once\)$/m);

    const listed = await npmRun('client', ['list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(
      'cli-test\n  name          CLI test\n  type          confidential (client_secret_basic)\n  ID token alg  ES256\n  redirect      http://localhost:9999/callback\n',
    );
    expect(listed.stdout).not.toContain('client_secret:');
  }, 60_000);

  it('refuses a client without a valid redirect URI, naming the option', async () => {
    const refused = await npmRun('client', ['add', 'cli-bad', '--redirect', 'not a url']);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toMatch(/^nyckel: --redirect \(1st\): /);
    expect(refused.stdout).not.toContain('saved');
  }, 60_000);

  it('refuses URIs oidc-provider would refuse at runtime, naming each', async () => {
    const refused = await npmRun('client', ['add', 'cli-bad', '--redirect', 'http://localhost:9997/cb#frag', '--redirect', 'myapp:/cb', '--logout', 'javascript:alert(1)']);
    expect(refused.code).toBe(64);
    expect(refused.stderr.trim()).toBe(
      'nyckel: --redirect (1st): "http://localhost:9997/cb#frag" must not contain a fragment (#); ' +
        '--redirect (2nd): "myapp:/cb" must be an http or https URL; --logout (1st): "javascript:alert(1)" must be an http or https URL',
    );
    expect((await npmRun('client', ['list'])).stdout).not.toContain('cli-bad');
  }, 60_000);

  it('add never changes an existing client; update keeps its secret and unnamed settings; rotate-secret makes a new one', async () => {
    const added = await npmRun('client', ['add', 'cli-rp', '--redirect', 'http://localhost:9999/cb', '--logout', 'http://localhost:9999/']);
    const secret = /^client_secret: (\S+) \(shown once\)$/m.exec(added.stdout)?.[1];
    expect(secret).toBeDefined();

    const again = await npmRun('client', ['add', 'cli-rp', '--redirect', 'http://localhost:9999/cb', '--redirect', 'http://localhost:9999/cb2']);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr.trim()).toBe(
      'nyckel: client cli-rp already exists. Change its settings with `npm run client -- update cli-rp …` (keeps its secret), ' +
        'or give it a new secret with `npm run client -- rotate-secret cli-rp`.',
    );
    // The table keeps the secret as its hash only (src/oidc/client-secret.ts).
    expect(await storedClient('cli-rp')).toMatchObject({ client_secret: sealClientSecret(secret!), redirect_uris: ['http://localhost:9999/cb'] });

    const updated = await npmRun('client', ['update', 'cli-rp', '--redirect', 'http://localhost:9999/cb', '--redirect', 'http://localhost:9999/cb2']);
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toBe('Client cli-rp updated.\nRunning servers use the change within 30 s.\n');
    expect(await storedClient('cli-rp')).toMatchObject({
      client_secret: sealClientSecret(secret!),
      token_endpoint_auth_method: 'client_secret_basic',
      redirect_uris: ['http://localhost:9999/cb', 'http://localhost:9999/cb2'],
      post_logout_redirect_uris: ['http://localhost:9999/'],
    });
    const secretOnUpdate = await npmRun('client', ['update', 'cli-rp', '--secret', 'a-new-secret-0123456789']);
    expect(secretOnUpdate.code).toBe(64);
    expect(secretOnUpdate.stderr).toContain('update keeps the client type and its secret; `rotate-secret <client_id>` makes a new secret');

    const rotated = await npmRun('client', ['rotate-secret', 'cli-rp']);
    expect(rotated.code, rotated.stderr).toBe(0);
    const newSecret = /^client_secret: (\S+) \(shown once\)$/m.exec(rotated.stdout)?.[1];
    expect(newSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newSecret).not.toBe(secret);
    expect(await storedClient('cli-rp')).toMatchObject({ client_secret: sealClientSecret(newSecret!), post_logout_redirect_uris: ['http://localhost:9999/'] });
  }, 120_000);

  it('update keeps a public client public; rotate-secret refuses it', async () => {
    expect((await npmRun('client', ['add', 'cli-spa', '--public', '--redirect', 'http://localhost:9998/cb'])).code).toBe(0);
    expect((await npmRun('client', ['update', 'cli-spa', '--redirect', 'http://localhost:9998/cb', '--redirect', 'http://localhost:9998/cb2'])).code).toBe(0);
    expect((await npmRun('client', ['list'])).stdout).toContain(
      'cli-spa\n  name          cli-spa\n  type          public (PKCE only)\n  ID token alg  ES256\n  redirect      http://localhost:9998/cb\n                http://localhost:9998/cb2\n',
    );
    const rotated = await npmRun('client', ['rotate-secret', 'cli-spa']);
    expect([rotated.code, rotated.stderr.trim()]).toEqual([1, 'nyckel: client cli-spa is public (PKCE only): it has no secret to rotate.']);
    const unknown = await npmRun('client', ['update', 'cli-nobody', '--name', 'x']);
    expect([unknown.code, unknown.stderr.trim()]).toEqual([1, 'nyckel: no client cli-nobody; register it with `npm run client -- add cli-nobody --redirect <uri>`.']);
  }, 120_000);

  it('prints a usage listing every command and option', async () => {
    const usage = await npmRun('client', ['fly']);
    expect(usage.code).toBe(64);
    for (const part of ['add <client_id>', '--alg ES256|RS256', 'update <client_id>', 'rotate-secret <client_id>', 'list']) expect(usage.stderr).toContain(part);
  }, 60_000);
});

/** A client's stored metadata, read from the embedded database once the command has closed it. */
async function storedClient(clientId: string): Promise<Record<string, unknown>> {
  const db = await createDb({ dataDir });
  try {
    const row = await db('oidc_clients').where({ client_id: clientId }).first('metadata');
    return typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata;
  } finally {
    await db.destroy();
  }
}

describe.skipIf(process.env.DATABASE_URL)('the scripts’ refusals', () => {
  it('npm run migrate refuses an argument it does not know with its usage (64), migrating nothing', async () => {
    const refused = await npmRun('migrate', ['--help']);
    expect(refused.code).toBe(64);
    expect(refused.stderr.trim()).toBe('usage: npm run migrate [-- down]   (apply every migration, or roll all back with down)');
    expect(refused.stdout).toBe('');
  }, 60_000);

  it.each([
    ['migrate', []],
    ['client', ['list']],
  ])('npm run %s on a database it cannot reach says so in one line naming it, and exits 69', async (script, args) => {
    const refused = await runScript(dataDir, script, args, { DATABASE_URL: 'postgres://nyckel:secret@127.0.0.1:1/nyckel' });
    expect(refused.code).toBe(69);
    const lines = refused.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^nyckel: cannot migrate the database at DATABASE_URL \(postgres:\/\/127\.0\.0\.1:1\/nyckel\): .*ECONNREFUSED/);
    expect(refused.stderr).not.toContain('secret');
  }, 60_000);
});
