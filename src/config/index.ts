import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { envSchema, type Env } from './schema.ts';

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
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = issue.path.join('.') || 'environment';
    throw new ConfigError(`Invalid ${name}: ${issue.message}`);
  }
  const env = parsed.data;
  const production = env.NODE_ENV === 'production';
  const dataDir = resolve(env.DATA_DIR);

  if (production) {
    if (!env.DATABASE_URL) throw new ConfigError('Invalid DATABASE_URL: required in production (the embedded database is for development)');
    if (!env.REDIS_URL) throw new ConfigError('Invalid REDIS_URL: required in production (the in-process store is for development)');
    if (!env.COOKIE_SECRETS) throw new ConfigError('Invalid COOKIE_SECRETS: required in production (generated secrets are for development)');
    if (!env.ENCRYPTION_KEY) throw new ConfigError('Invalid ENCRYPTION_KEY: required in production (a generated key is for development)');
    if (env.SEED_DEMO) throw new ConfigError('Invalid SEED_DEMO: demo data is refused in production');
  }

  const devSecrets = production ? undefined : developmentSecrets(dataDir, env.NODE_ENV === 'test');
  const issuer = (env.ISSUER ?? `http://localhost:${env.PORT}/oauth2`).replace(/\/$/, '');
  const issuerUrl = new URL(issuer);
  // oidc-provider is mounted at /oauth2 (app.ts); an issuer elsewhere would publish URLs that 404.
  if (issuerUrl.pathname !== '/oauth2' || issuerUrl.search || issuerUrl.hash) {
    throw new ConfigError('Invalid ISSUER: must be an origin followed by /oauth2, e.g. https://id.example.com/oauth2');
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(issuerUrl.hostname);

  return Object.freeze({
    env: env.NODE_ENV,
    port: env.PORT,
    host: env.HOST,
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
    metricsToken: env.METRICS_TOKEN,
    secureCookies: issuerUrl.protocol === 'https:' || !loopback,
    upstream: Object.freeze(upstreamProviders(env, production)),
  });
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
