import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ConfigError, loadConfig, type Config } from '../../src/config/index.ts';
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

  it.each(['ISSUER', 'DATABASE_URL', 'REDIS_URL', 'COOKIE_SECRETS', 'ENCRYPTION_KEY'])(
    'refuses production without %s, naming it',
    (name) => {
      const env: Record<string, string> = { ...production };
      delete env[name];
      expect(configError(env).message).toContain(name);
    },
  );

  it('refuses a plain http ISSUER in production unless it is this machine', () => {
    // Session cookies and authorization codes would cross the network in the clear.
    expect(configError({ ...production, ISSUER: 'http://id.example.com/oauth2' }).message).toMatch(/^Invalid ISSUER: .*https/);
    expect(configError({ ...production, ISSUER: 'http://192.168.1.20:3000/oauth2' }).message).toMatch(/^Invalid ISSUER: /);
    // docker compose and the benchmarks run production mode on loopback.
    for (const issuer of ['http://localhost:3000/oauth2', 'http://127.0.0.1:41234/oauth2', 'http://[::1]:3000/oauth2']) {
      expect(loadConfig({ ...production, ISSUER: issuer }).issuer).toBe(issuer);
    }
  });

  it.each([
    ["docker-compose.yml's old cookie secret", 'COOKIE_SECRETS', 'CHANGE-ME-cookie-secret-at-least-32-characters-long'],
    ['a placeholder among real cookie secrets', 'COOKIE_SECRETS', `${randomBytes(32).toString('base64url')},change-me-change-me-change-me-change-me`],
    ["docker-compose.yml's old encryption key (base64 of a CHANGE-ME text)", 'ENCRYPTION_KEY', 'Q0hBTkdFLU1FLUNIQU5HRS1NRS1DSEFOR0UtTUUtMzI='],
    ["docker-compose.yml's old database password", 'DATABASE_URL', 'postgres://nyckel:CHANGE-ME-db-password@postgres:5432/nyckel'],
    [".env.example's database password", 'DATABASE_URL', 'postgres://nyckel:change-me@127.0.0.1:5432/nyckel'],
    ['a placeholder Redis password', 'REDIS_URL', 'redis://:CHANGE-ME@cache.example.com:6379'],
    ['a placeholder metrics token', 'METRICS_TOKEN', 'CHANGE-ME-metrics-token'],
  ])('refuses %s in production, naming %s', (_case, name, value) => {
    const message = configError({ ...production, [name]: value }).message;
    expect(message).toMatch(new RegExp(`^Invalid ${name}: .*CHANGE-ME`));
    expect(message).not.toContain(value);
  });

  it("accepts docker-compose.yml's environment on the image's once its secrets are set, and binds every interface", () => {
    const { env, required } = composeEnvironment();
    // Every secret comes from the operator's environment; none is written in the file.
    expect(required).toEqual(expect.arrayContaining(['COOKIE_SECRETS', 'ENCRYPTION_KEY', 'POSTGRES_PASSWORD']));
    const config = loadConfig(env);
    expect(config.env).toBe('production');
    expect(config.issuer).toBe('http://localhost:3000/oauth2');
    // 127.0.0.1 inside a container would be unreachable through its published port.
    expect(config.host).toBe('0.0.0.0');
  });

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

  it('binds 127.0.0.1 outside production, where the demo accounts of the README are seeded, and every interface in production', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).host).toBe('127.0.0.1');
    expect(loadConfig({ NODE_ENV: 'development', DATA_DIR: join(scratch, 'host') }).host).toBe('127.0.0.1');
    expect(loadConfig(production).host).toBe('0.0.0.0');
    expect(loadConfig({ NODE_ENV: 'test', HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(loadConfig({ ...production, HOST: '127.0.0.1' }).host).toBe('127.0.0.1');
  });

  it('takes an empty or blank value as unset: the default applies, as .env.example says', () => {
    const empty = loadConfig({ NODE_ENV: 'test', PORT: '', HOST: '', STORE_PREFIX: '', LOGIN_SESSION_TTL: '', LOG_LEVEL: ' ', MAIL_FROM: '' });
    expect(empty.port).toBe(3000);
    expect(empty.host).toBe('127.0.0.1');
    expect(empty.storePrefix).toBe('nyckel:');
    expect(empty.loginSessionTtl).toBe(1800);
    expect(empty.logLevel).toBe('info');
    expect(empty.mailFrom).toBe('Nyckel <no-reply@localhost>');
  });

  it('refuses a blank NODE_ENV rather than take it for development: a production manifest that lost it must not start open', () => {
    expect(configError({ NODE_ENV: '' }).message).toMatch(/\bNODE_ENV\b/);
    expect(configError({ NODE_ENV: ' ' }).message).toMatch(/\bNODE_ENV\b/);
  });

  it.each(Object.keys(envSchema.shape).filter((name) => name !== 'NODE_ENV'))('gives an empty %s the value it has when unset', (name) => {
    // DATA_DIR and NODE_ENV fixed in the base would hide their own defaults: only the others get them.
    const base: Record<string, string> = { DATA_DIR: join(scratch, 'empty'), NODE_ENV: 'test' };
    if (name in base) delete base[name];
    expect(comparable(loadConfig({ ...base, [name]: '' }))).toEqual(comparable(loadConfig(base)));
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

/** A configuration without its test-generated secrets, which differ on every load. */
function comparable(config: Config): Omit<Config, 'cookieSecrets' | 'encryptionKey'> {
  const { cookieSecrets: _cookieSecrets, encryptionKey: _encryptionKey, ...rest } = config;
  return rest;
}

/**
 * The nyckel service's environment as `docker compose up` gives it: the image's ENV (Dockerfile)
 * under the compose file's, each `${NAME:?…}` filled with a fresh secret as the operator's .env
 * would, and the names of those variables.
 */
function composeEnvironment(): { env: Record<string, string>; required: string[] } {
  const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const image = Object.fromEntries(
    [...dockerfile.matchAll(/^ENV (.*)$/gm)].flatMap(([, line]) => line!.trim().split(/\s+/).map((pair) => pair.split('=') as [string, string])),
  );
  const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8')) as { services: { nyckel: { environment: Record<string, string> } } };
  const generated: Record<string, string> = {
    COOKIE_SECRETS: randomBytes(48).toString('base64'),
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    POSTGRES_PASSWORD: randomBytes(24).toString('hex'),
  };
  const required: string[] = [];
  const fill = (value: string) =>
    value.replace(/\$\{(\w+):\?[^}]*\}/g, (_match, name: string) => {
      required.push(name);
      return generated[name] ?? '';
    });
  const service = Object.fromEntries(Object.entries(compose.services.nyckel.environment).map(([name, value]) => [name, fill(String(value))]));
  return { env: { ...image, ...service }, required };
}

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
