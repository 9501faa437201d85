import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { envSchema } from '../../src/config/schema.ts';

const root = resolve(import.meta.dirname, '../..');
const scratch = mkdtempSync(join(tmpdir(), 'nyckel-config-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** What a production deployment must set; each test removes or breaks one thing. */
const production = {
  NODE_ENV: 'production',
  ISSUER: 'https://id.example.com/oauth2',
  DATABASE_URL: 'postgres://nyckel@db.example.com:5432/nyckel',
  REDIS_URL: 'redis://cache.example.com:6379',
  COOKIE_SECRETS: randomBytes(32).toString('base64url'),
  ENCRYPTION_KEY: randomBytes(32).toString('base64'),
};

/** loadConfig's failure: a ConfigError whose message is one line. */
function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).not.toContain('\n');
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('refuses a non-numeric PORT with one line naming PORT', () => {
    expect(configError({ NODE_ENV: 'test', PORT: 'abc' }).message).toMatch(/\bPORT\b/);
  });

  it.each([
    ['DATABASE_URL', 'not a url'],
    ['DATABASE_URL', 'mysql://db.example.com/nyckel'],
    ['REDIS_URL', 'localhost:6379'],
    ['ISSUER', 'id.example.com/oauth2'],
    ['ENCRYPTION_KEY', 'too-short'],
    ['NODE_ENV', 'staging'],
  ])('refuses a malformed %s (%s) naming it', (name, value) => {
    expect(configError({ NODE_ENV: 'test', [name]: value }).message).toContain(name);
  });

  it('accepts a complete production configuration', () => {
    const config = loadConfig(production);
    expect(config.env).toBe('production');
    expect(config.issuer).toBe('https://id.example.com/oauth2');
    expect(config.publicUrl).toBe('https://id.example.com');
    expect(config.secureCookies).toBe(true);
    expect(config.seedDemo).toBe(false);
    expect(config.encryptionKey).toHaveLength(32);
  });

  it.each(['DATABASE_URL', 'REDIS_URL', 'COOKIE_SECRETS', 'ENCRYPTION_KEY'])(
    'refuses production without %s, naming it',
    (name) => {
      const env: Record<string, string> = { ...production };
      delete env[name];
      expect(configError(env).message).toContain(name);
    },
  );

  const secret = randomBytes(32).toString('base64url');
  it.each([
    ['a trailing comma (an empty secret)', `${secret},`],
    ['an empty secret between two', `${secret},,${secret}`],
    ['a blank secret', `${secret},   `],
    ['a one-character secret after a good one', `${secret},x`],
    ['a short secret before a good one', `short-secret-of-31-characters!!,${secret}`],
  ])('refuses COOKIE_SECRETS with %s, naming the variable and not the value', (_case, value) => {
    // Cookies verify against any listed secret: an empty or short one would let anyone sign them.
    for (const env of [{ ...production, COOKIE_SECRETS: value }, { NODE_ENV: 'test', COOKIE_SECRETS: value }]) {
      const message = configError(env).message;
      expect(message).toMatch(/^Invalid COOKIE_SECRETS: /);
      expect(message).not.toContain(secret);
      expect(message).not.toContain('short-secret');
    }
  });

  it('accepts several COOKIE_SECRETS, trimmed, newest first', () => {
    const older = randomBytes(32).toString('base64url');
    expect(loadConfig({ ...production, COOKIE_SECRETS: ` ${secret} , ${older}` }).cookieSecrets).toEqual([secret, older]);
  });

  it('refuses demo data in production', () => {
    expect(configError({ ...production, SEED_DEMO: 'true' }).message).toContain('SEED_DEMO');
  });

  it('defaults to port 3000 with an issuer on that port, and follows PORT', () => {
    const defaults = loadConfig({ NODE_ENV: 'test' });
    expect(defaults.port).toBe(3000);
    expect(defaults.issuer).toBe('http://localhost:3000/oauth2');
    expect(defaults.publicUrl).toBe('http://localhost:3000');
    expect(defaults.storePrefix).toBe('nyckel:');
    expect(defaults.databaseUrl).toBeUndefined();
    expect(defaults.redisUrl).toBeUndefined();
    expect(defaults.secureCookies).toBe(false);
    // Embedded database and no DATABASE_URL: a laptop, so the demo data is seeded.
    expect(defaults.seedDemo).toBe(true);

    const moved = loadConfig({ NODE_ENV: 'test', PORT: '4100' });
    expect(moved.port).toBe(4100);
    expect(moved.issuer).toBe('http://localhost:4100/oauth2');
  });

  it('does not seed demo data by default when a real database is configured', () => {
    expect(loadConfig({ NODE_ENV: 'test', DATABASE_URL: 'postgres://localhost/x' }).seedDemo).toBe(false);
  });

  it('refuses an ISSUER whose path is not /oauth2, where the provider is mounted', () => {
    expect(configError({ NODE_ENV: 'test', ISSUER: 'http://127.0.0.1:3000' }).message).toMatch(/^Invalid ISSUER: /);
    expect(configError({ NODE_ENV: 'test', ISSUER: 'http://127.0.0.1:3000/idp' }).message).toMatch(/^Invalid ISSUER: /);
  });

  it('drops a trailing slash from ISSUER and uses its origin as the public URL', () => {
    const config = loadConfig({ NODE_ENV: 'test', ISSUER: 'http://127.0.0.1:3000/oauth2/' });
    expect(config.issuer).toBe('http://127.0.0.1:3000/oauth2');
    expect(config.publicUrl).toBe('http://127.0.0.1:3000');
  });

  it('is frozen, down to the cookie secrets', () => {
    const config = loadConfig({ NODE_ENV: 'test' });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.cookieSecrets)).toBe(true);
    expect(() => {
      (config as { port: number }).port = 1;
    }).toThrow(TypeError);
    expect(config.port).toBe(3000);
  });

  it('keeps generated development secrets in DATA_DIR so they survive a restart', () => {
    const dataDir = join(scratch, 'dev');
    const first = loadConfig({ NODE_ENV: 'development', DATA_DIR: dataDir });
    expect(existsSync(join(dataDir, 'dev-secrets.json'))).toBe(true);
    const second = loadConfig({ NODE_ENV: 'development', DATA_DIR: dataDir });
    expect(second.cookieSecrets).toEqual(first.cookieSecrets);
    expect(second.encryptionKey.equals(first.encryptionKey)).toBe(true);
    // Tests get fresh secrets in memory.
    expect(loadConfig({ NODE_ENV: 'test' }).encryptionKey.equals(loadConfig({ NODE_ENV: 'test' }).encryptionKey)).toBe(false);
  });

  it('documents every variable of the schema in .env.example and the README', () => {
    const example = readFileSync(join(root, '.env.example'), 'utf8');
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    for (const name of Object.keys(envSchema.shape)) {
      expect(example, '.env.example').toMatch(new RegExp(`^#? ?${name}=`, 'm'));
      expect(readme, 'README.md').toContain(`| \`${name}\` |`);
    }
  });
});

describe('node src/main.ts with a bad variable', () => {
  it('exits non-zero with one line on stderr naming PORT', async () => {
    const child = spawn(process.execPath, ['src/main.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'development', DATA_DIR: join(scratch, 'main'), PORT: 'abc' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    const code = await new Promise<number | null>((done, fail) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        fail(new Error('node src/main.ts did not exit within 20 s'));
      }, 20_000);
      child.on('exit', (exitCode) => {
        clearTimeout(timer);
        done(exitCode);
      });
    });
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    expect(stderr).toMatch(/^[^\n]*\bPORT\b[^\n]*\n$/);
    expect(stdout).toBe('');
  });
});
