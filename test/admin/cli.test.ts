import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { createContext } from '../../src/main.ts';
import { npmRun as runScript } from '../helpers/npm-run.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'nyckel-operator-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));


const operator = (...args: string[]) => npmRun('operator', args);

const npmRun = (script: string, args: string[]) => runScript(dataDir, script, args);

const seed = (...args: string[]) => npmRun('seed', args);

// The script runs on the embedded database (PGlite on disk, slow under load): skipped on the
// DATABASE_URL run, which would only repeat it.
describe.skipIf(process.env.DATABASE_URL)('npm run operator and npm run seed -- --accounts', () => {
  it('grants, changes, lists and revokes roles; refuses unknown emails and roles clearly', async () => {
    expect((await seed()).code).toBe(0);

    const listed = await operator('list');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toBe('operator@example.com\tadmin\tOlivia Operator\n');

    // An operator account must have a second factor: Ulla has only a password, Maja has TOTP.
    const refused = await operator('grant', 'user@example.com', 'admin');
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(
      'nyckel: user@example.com has no second factor; an operator account must have an authenticator app (TOTP) or a passkey. ' +
        'Ask them to add one under Account settings, then grant the role again.',
    );

    const granted = await operator('grant', 'MFA@example.com');
    expect([granted.code, granted.stdout]).toEqual([0, 'mfa@example.com is now an operator (support).\n']);
    const promoted = await operator('grant', 'mfa@example.com', 'admin');
    expect(promoted.stdout).toBe('mfa@example.com is now an operator (admin).\n');
    expect((await operator('list')).stdout).toBe('mfa@example.com\tadmin\tMaja Mfa\noperator@example.com\tadmin\tOlivia Operator\n');

    const revoked = await operator('revoke', 'mfa@example.com');
    expect([revoked.code, revoked.stdout]).toEqual([0, 'mfa@example.com is no longer an operator (was admin).\n']);

    const unknown = await operator('grant', 'nobody@example.com', 'admin');
    expect([unknown.code, unknown.stderr.trim()]).toEqual([1, 'nyckel: no account with the email nobody@example.com']);
    const badRole = await operator('grant', 'user@example.com', 'root');
    expect(badRole.code).toBe(64);
    expect(badRole.stderr).toContain('unknown role "root"');
    expect((await operator('fly')).code).toBe(64);
    expect((await operator('revoke')).code).toBe(64);

    // The last admin keeps the role, unless --force.
    for (const args of [['revoke', 'operator@example.com'], ['grant', 'operator@example.com', 'support']]) {
      const last = await operator(...args);
      expect([last.code, last.stderr.trim()]).toEqual([
        1,
        'nyckel: operator@example.com is the last admin; without one no one can delete credentials, read reset links or log in as a user. ' +
          'Grant another account the admin role first, or add --force.',
      ]);
    }
    expect((await operator('list')).stdout).toBe('operator@example.com\tadmin\tOlivia Operator\n');
    const forced = await operator('revoke', 'operator@example.com', '--force');
    expect([forced.code, forced.stdout]).toEqual([0, 'operator@example.com is no longer an operator (was admin).\n']);
    expect((await operator('list')).stdout).toBe('No operators.\n');

    // Each change names who ran it, as the machine knows them.
    const ctx = await createContext(loadConfig({ NODE_ENV: 'development', DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
    try {
      const rows = await ctx.db('audit_events').where('action', 'like', 'operator.role.%').orderBy('id').select('action', 'details');
      expect(rows.map((row) => [row.action, row.details.role, row.details.by])).toEqual([
        ['operator.role.granted', 'support', { os_user: userInfo().username, host: hostname() }],
        ['operator.role.granted', 'admin', { os_user: userInfo().username, host: hostname() }],
        ['operator.role.revoked', 'admin', { os_user: userInfo().username, host: hostname() }],
        ['operator.role.revoked', 'admin', { os_user: userInfo().username, host: hostname() }],
      ]);
      expect(rows.map((row) => row.details.forced)).toEqual([undefined, undefined, false, true]);
    } finally {
      await Promise.allSettled([ctx.db.destroy(), ctx.store.close(), ctx.mailer.close()]);
    }
  }, 180_000);

  it('generates accounts with a progress bar on stderr, topping up on a second run; refuses a bad count', async () => {
    const first = await seed('--accounts', '1500');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^Demo data (seeded|already present)\.\n1500 generated accounts added \(1500 asked\) in \d+\.\d s\.\n$/);
    expect(first.stderr).toContain('accounts 100% 1500/1500');
    const again = await seed('--accounts', '2000');
    expect(again.stdout).toContain('500 generated accounts added (2000 asked)');
    expect((await seed('--accounts', 'many')).code).toBe(64);
    expect((await seed('--accounts', '-1')).code).toBe(64);
  }, 120_000);
});
