import { z } from 'zod';

const boolean = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const url = (protocols: string[]) =>
  z.string().refine((value) => {
    try {
      return protocols.includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, `must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`);

/**
 * COOKIE_SECRETS as its list. Each secret is checked, not only the whole value: cookies verify
 * against any listed secret, so an empty one (a trailing comma) or a short one would let anyone
 * sign a cookie. The message says which secret, never what it is.
 */
const cookieSecrets = z
  .string()
  .transform((value) => value.split(',').map((secret) => secret.trim()))
  .superRefine((secrets, ctx) => {
    secrets.forEach((secret, index) => {
      if (secret.length >= 32) return;
      const problem = secret === '' ? 'is empty (a stray comma?)' : 'is shorter than 32 characters';
      ctx.addIssue({ code: 'custom', message: `secret ${index + 1} of ${secrets.length} ${problem}` });
    });
  });

/**
 * Every environment variable Nyckel reads, with its default and a one-line description.
 * `.env.example` and the README's configuration table list the same keys.
 */
export const envSchema = z.object({
  /** development | test | production. Production refuses embedded services, dev secrets and seeding. */
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  /** TCP port the HTTP server listens on. */
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Interface to bind. Default 127.0.0.1 (this machine only); 0.0.0.0 (every interface) in production. */
  HOST: z.string().optional(),
  /** OIDC issuer identifier; the public base URL is its origin. Default http://localhost:$PORT/oauth2; required in production. */
  ISSUER: url(['http:', 'https:']).optional(),
  /** PostgreSQL connection string; empty means embedded PGlite under DATA_DIR. */
  DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
  /** Redis connection string; empty means the in-process store. */
  REDIS_URL: url(['redis:', 'rediss:']).optional(),
  /** Prefix for every key Nyckel writes to the store. */
  STORE_PREFIX: z.string().default('nyckel:'),
  /** Folder for the embedded database, outbox and generated development secrets. */
  DATA_DIR: z.string().min(1).default('./data'),
  /** SMTP URL for outgoing mail; empty writes .eml files to DATA_DIR/outbox. */
  SMTP_URL: url(['smtp:', 'smtps:']).optional(),
  /** Sender address of every email. */
  MAIL_FROM: z.string().min(3).default('Nyckel <no-reply@localhost>'),
  /** Comma-separated secrets signing cookies, newest first, each at least 32 characters. Required in production. */
  COOKIE_SECRETS: cookieSecrets.optional(),
  /** Base64 key (32 bytes) encrypting secrets at rest (TOTP seeds). Required in production. */
  ENCRYPTION_KEY: z.string().regex(/^[A-Za-z0-9+/]{43}=?$/, 'must be 32 bytes in base64').optional(),
  /** Seed the demo data on start (never allowed in production). */
  SEED_DEMO: boolean.optional(),
  /** pino log level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Express trust proxy setting: number of proxies in front of Nyckel. */
  TRUST_PROXY: z.coerce.number().int().min(0).max(10).default(0),
  /** Lifetime of a login session in seconds. */
  LOGIN_SESSION_TTL: z.coerce.number().int().min(60).max(86_400).default(1800),
  /** Minutes without a request after which a Nyckel session not signed in with "remember me" ends. */
  SESSION_IDLE_MINUTES: z.coerce.number().int().min(5).max(720).default(30),
  /** Days a remembered device skips the TOTP step. */
  REMEMBER_DEVICE_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  /** Calls per minute one client may make to the token, introspection, revocation and PAR endpoints (twice that per IP). */
  OAUTH_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(6000),
  /** Authorization and logout requests per minute from one IP (an IPv6 /64). */
  AUTHORIZE_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(1200),
  /** Bearer token that reads /metrics; without one /metrics is open in development and off in production. */
  METRICS_TOKEN: z.string().min(16).optional(),
  /** URL of the sharing portal ("athena") stakeholders are sent to. */
  ATHENA_URL: url(['http:', 'https:']).optional(),
  /** Google sign-in: OAuth client id; empty hides Google. */
  GOOGLE_CLIENT_ID: z.string().min(1).optional(),
  /** Google sign-in: OAuth client secret. */
  GOOGLE_CLIENT_SECRET: z.string().min(1).optional(),
  /** Google sign-in: issuer whose discovery document is used. */
  GOOGLE_ISSUER: url(['http:', 'https:']).default('https://accounts.google.com'),
  /** Microsoft sign-in: application (client) id; empty hides Microsoft. */
  MICROSOFT_CLIENT_ID: z.string().min(1).optional(),
  /** Microsoft sign-in: client secret. */
  MICROSOFT_CLIENT_SECRET: z.string().min(1).optional(),
  /** Microsoft sign-in: authority (issuer), tenant-specific or `organizations`. */
  MICROSOFT_ISSUER: url(['http:', 'https:']).default('https://login.microsoftonline.com/organizations/v2.0'),
  /** Microsoft sign-in: comma-separated tenant ids (tid) allowed to sign in; empty allows any. */
  MICROSOFT_ALLOWED_TENANTS: z.string().optional(),
});

export type Env = z.infer<typeof envSchema>;

/**
 * Parses the environment with blank values taken as unset: `PORT=` or `HOST=` in an .env file
 * means "use the default", as .env.example promises, not an empty string (which z.coerce would
 * turn into port 0, and which no default replaces).
 */
export function parseEnv(source: NodeJS.ProcessEnv) {
  // NODE_ENV excepted: a blank one (`NODE_ENV: ${NODE_ENV}` in a manifest, left unset) would run a
  // production deployment as development, without production's refusals. It is refused instead.
  const set = Object.entries(source).filter(([name, value]) => value !== undefined && (name === 'NODE_ENV' || value.trim() !== ''));
  return envSchema.safeParse(Object.fromEntries(set));
}
