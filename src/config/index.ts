import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseEnv, type Env } from './schema.ts';

export interface Config {
  readonly env: Env['NODE_ENV'];
  readonly port: number;
  readonly host: string;
  readonly issuer: string;
  /** Origin of the issuer: links in emails and redirects are built from it, never from Host. */
  readonly publicUrl: string;
  readonly databaseUrl: string | undefined;
  readonly redisUrl: string | undefined;
  readonly storePrefix: string;
  readonly dataDir: string;
  readonly smtpUrl: string | undefined;
  readonly mailFrom: string;
  readonly cookieSecrets: readonly string[];
  readonly encryptionKey: Buffer;
  readonly seedDemo: boolean;
  readonly logLevel: Env['LOG_LEVEL'];
  readonly trustProxy: number;
  readonly loginSessionTtl: number;
  /** Minutes of inactivity that end a Nyckel (portal) session signed in without "remember me". */
  readonly sessionIdleMinutes: number;
  readonly rememberDeviceDays: number;
  readonly athenaUrl: string | undefined;
  readonly oauthRateLimitPerMinute: number;
  readonly authorizeRateLimitPerMinute: number;
  readonly metricsToken: string | undefined;
  /** True when Nyckel is served over https or on a non-loopback host: cookies get `Secure`. */
  readonly secureCookies: boolean;
  /** Upstream sign-in providers; a provider without a client id is absent (hidden, its routes refuse). */
  readonly upstream: { readonly google?: UpstreamProviderConfig; readonly microsoft?: UpstreamProviderConfig };
}

export interface UpstreamProviderConfig {
  readonly clientId: string;
  readonly clientSecret: string;
  /** Issuer (authority) whose discovery document is fetched on first use. */
  readonly issuer: string;
  /** Microsoft: tenant ids (`tid`) allowed to sign in; empty allows any. Always empty for Google. */
  readonly allowedTenants: readonly string[];
}

export class ConfigError extends Error {}

/**
 * Parses the environment once. Throws a ConfigError whose message is one line naming the bad
 * variable. Production refuses anything that only makes sense on a laptop.
 */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const parsed = parseEnv(source);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = issue.path.join('.') || 'environment';
    throw new ConfigError(`Invalid ${name}: ${issue.message}`);
  }
  const env = parsed.data;
  const production = env.NODE_ENV === 'production';
  const dataDir = resolve(env.DATA_DIR);

  if (production) refuseUnsafeProduction(env);
  const devSecrets = production ? undefined : developmentSecrets(dataDir, env.NODE_ENV === 'test');
  const issuer = (env.ISSUER ?? `http://localhost:${env.PORT}/oauth2`).replace(/\/$/, '');
  const issuerUrl = new URL(issuer);
  // oidc-provider is mounted at /oauth2 (app.ts); an issuer elsewhere would publish URLs that 404.
  if (issuerUrl.pathname !== '/oauth2' || issuerUrl.search || issuerUrl.hash) {
    throw new ConfigError('Invalid ISSUER: must be an origin followed by /oauth2, e.g. https://id.example.com/oauth2');
  }
  const loopback = isLoopbackHost(issuerUrl.hostname);
  // Plain http carries session cookies and codes in the clear; only this machine may be spared TLS
  // (docker compose and the benchmarks run production mode on localhost).
  if (production && issuerUrl.protocol !== 'https:' && !loopback) {
    throw new ConfigError('Invalid ISSUER: must be https in production (http only on localhost or 127.0.0.1)');
  }

  return Object.freeze({
    env: env.NODE_ENV,
    port: env.PORT,
    // Development seeds demo accounts whose passwords are in the README: only this machine may
    // reach them. A container sets HOST=0.0.0.0 (Dockerfile) for its port mapping to work.
    host: env.HOST ?? (production ? '0.0.0.0' : '127.0.0.1'),
    issuer,
    publicUrl: issuerUrl.origin,
    databaseUrl: env.DATABASE_URL,
    redisUrl: env.REDIS_URL,
    storePrefix: env.STORE_PREFIX,
    dataDir,
    smtpUrl: env.SMTP_URL,
    mailFrom: env.MAIL_FROM,
    cookieSecrets: Object.freeze(env.COOKIE_SECRETS ?? [devSecrets!.cookieSecret]),
    encryptionKey: Buffer.from(env.ENCRYPTION_KEY ?? devSecrets!.encryptionKey, 'base64'),
    seedDemo: env.SEED_DEMO ?? (!production && !env.DATABASE_URL),
    logLevel: env.LOG_LEVEL,
    trustProxy: env.TRUST_PROXY,
    loginSessionTtl: env.LOGIN_SESSION_TTL,
    sessionIdleMinutes: env.SESSION_IDLE_MINUTES,
    rememberDeviceDays: env.REMEMBER_DEVICE_DAYS,
    athenaUrl: env.ATHENA_URL,
    oauthRateLimitPerMinute: env.OAUTH_RATE_LIMIT_PER_MINUTE,
    authorizeRateLimitPerMinute: env.AUTHORIZE_RATE_LIMIT_PER_MINUTE,
    metricsToken: env.METRICS_TOKEN,
    secureCookies: issuerUrl.protocol === 'https:' || !loopback,
    upstream: Object.freeze(upstreamProviders(env, production)),
  });
}

function isLoopbackHost(hostname: string): boolean {
  return ['localhost', '127.0.0.1', '[::1]'].includes(hostname);
}

/** Production needs real services, real secrets and its public URL; each refusal names its variable. */
function refuseUnsafeProduction(env: Env): void {
  if (!env.ISSUER) throw new ConfigError('Invalid ISSUER: required in production (the public URL, e.g. https://id.example.com/oauth2)');
  if (!env.DATABASE_URL) throw new ConfigError('Invalid DATABASE_URL: required in production (the embedded database is for development)');
  if (!env.REDIS_URL) throw new ConfigError('Invalid REDIS_URL: required in production (the in-process store is for development)');
  if (!env.COOKIE_SECRETS) throw new ConfigError('Invalid COOKIE_SECRETS: required in production (generated secrets are for development)');
  if (!env.ENCRYPTION_KEY) throw new ConfigError('Invalid ENCRYPTION_KEY: required in production (a generated key is for development)');
  if (env.SEED_DEMO) throw new ConfigError('Invalid SEED_DEMO: demo data is refused in production');
  const placeholder = placeholderSecret(env);
  if (placeholder) throw new ConfigError(`Invalid ${placeholder}: holds a CHANGE-ME placeholder; replace it with a generated secret`);
}

/**
 * The first secret still holding a placeholder from docker-compose.yml or .env.example: those are
 * public, so a deployment that kept one lets anyone sign cookies or decrypt TOTP seeds. The
 * compose file's encryption key is base64 of a CHANGE-ME text, so keys are checked decoded too;
 * in connection URLs only the password is a secret.
 */
function placeholderSecret(env: Env): string | undefined {
  const secrets: Record<string, string | undefined> = {
    COOKIE_SECRETS: env.COOKIE_SECRETS?.join(','),
    ENCRYPTION_KEY: env.ENCRYPTION_KEY && `${env.ENCRYPTION_KEY} ${Buffer.from(env.ENCRYPTION_KEY, 'base64').toString('latin1')}`,
    DATABASE_URL: env.DATABASE_URL && new URL(env.DATABASE_URL).password,
    REDIS_URL: env.REDIS_URL && new URL(env.REDIS_URL).password,
    SMTP_URL: env.SMTP_URL && new URL(env.SMTP_URL).password,
    METRICS_TOKEN: env.METRICS_TOKEN,
    GOOGLE_CLIENT_SECRET: env.GOOGLE_CLIENT_SECRET,
    MICROSOFT_CLIENT_SECRET: env.MICROSOFT_CLIENT_SECRET,
  };
  return Object.keys(secrets).find((name) => /change-?me/i.test(secrets[name] ?? ''));
}

/**
 * GOOGLE_* and MICROSOFT_*: a provider is on when its client id is set, and then needs its secret.
 * Production talks to upstream issuers over https only.
 */
function upstreamProviders(env: Env, production: boolean): Config['upstream'] {
  const one = (name: 'GOOGLE' | 'MICROSOFT', allowedTenants: readonly string[]): UpstreamProviderConfig | undefined => {
    const clientId = env[`${name}_CLIENT_ID`];
    if (!clientId) return undefined;
    const clientSecret = env[`${name}_CLIENT_SECRET`];
    if (!clientSecret) throw new ConfigError(`Invalid ${name}_CLIENT_SECRET: required when ${name}_CLIENT_ID is set`);
    const issuer = env[`${name}_ISSUER`].replace(/\/$/, '');
    if (production && new URL(issuer).protocol !== 'https:') throw new ConfigError(`Invalid ${name}_ISSUER: must be https in production`);
    return Object.freeze({ clientId, clientSecret, issuer, allowedTenants: Object.freeze([...allowedTenants]) });
  };
  const tenants = (env.MICROSOFT_ALLOWED_TENANTS ?? '')
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter((t) => t !== '');
  const google = one('GOOGLE', []);
  const microsoft = one('MICROSOFT', tenants);
  return { ...(google ? { google } : {}), ...(microsoft ? { microsoft } : {}) };
}

interface DevSecrets {
  cookieSecret: string;
  encryptionKey: string;
}

/**
 * Development only: secrets generated on first start and kept in DATA_DIR so sessions and
 * encrypted TOTP seeds survive a restart. Tests get fresh ones in memory.
 */
function developmentSecrets(dataDir: string, ephemeral: boolean): DevSecrets {
  const fresh = (): DevSecrets => ({
    cookieSecret: randomBytes(32).toString('base64url'),
    encryptionKey: randomBytes(32).toString('base64'),
  });
  if (ephemeral) return fresh();
  const file = join(dataDir, 'dev-secrets.json');
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as DevSecrets;
  } catch {
    const secrets = fresh();
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, JSON.stringify(secrets), { mode: 0o600 });
    return secrets;
  }
}
