import type { Knex } from 'knex';
import type { Context } from '../src/context.ts';
import { hashPassword } from '../src/credentials/password/hashing.ts';
import { insertClient, type ClientInput } from '../src/oidc/clients.ts';

/** The demo password of every seeded account that has one. */
export const demoPassword = 'Demo-passw0rd!';

/** Fixed demo TOTP secrets, printed in the README next to their accounts. */
export const demoTotpSecrets = {
  'operator@example.com': ['NYCKELOPERATORDEMOTOTPSECRET2345'],
  'mfa@example.com': ['NYCKELMFADEMOTOTPSECRETABCDE2345'],
  'twofactors@example.com': ['NYCKELTWOFACTORSFIRSTSECRET23456', 'NYCKELTWOFACTORSSECONDSECRET2345'],
} as const;

interface DemoAccount {
  email: string;
  name: string;
  is_user: boolean;
  is_stakeholder: boolean;
  password: boolean;
  password_reset_required?: boolean;
  tenants: { slug: string; role?: string; active?: boolean }[];
  operator?: 'admin' | 'support';
}

const accounts: DemoAccount[] = [
  { email: 'operator@example.com', name: 'Olivia Operator', is_user: true, is_stakeholder: false, password: true, tenants: [{ slug: 'acme', role: 'admin' }], operator: 'admin' },
  { email: 'user@example.com', name: 'Ulla User', is_user: true, is_stakeholder: false, password: true, tenants: [{ slug: 'acme' }, { slug: 'nordictalent' }, { slug: 'oldstaffing', active: false }] },
  { email: 'stakeholder@example.com', name: 'Sam Stakeholder', is_user: false, is_stakeholder: true, password: true, tenants: [] },
  { email: 'newcomer@example.com', name: 'Nina Newcomer', is_user: true, is_stakeholder: false, password: false, tenants: [{ slug: 'acme' }] },
  { email: 'migrated@example.com', name: 'Mikael Migrated', is_user: true, is_stakeholder: false, password: true, password_reset_required: true, tenants: [{ slug: 'acme' }] },
  { email: 'mfa@example.com', name: 'Maja Mfa', is_user: true, is_stakeholder: false, password: true, tenants: [{ slug: 'acme' }] },
  { email: 'twofactors@example.com', name: 'Tove Twofactors', is_user: true, is_stakeholder: false, password: true, tenants: [{ slug: 'nordictalent' }] },
];

const tenants = [
  { name: 'Acme Recruiting', slug: 'acme', url: 'http://localhost:8080/acme', inactive_at: null },
  { name: 'Nordic Talent', slug: 'nordictalent', url: 'http://localhost:8080/nordictalent', inactive_at: null },
  { name: 'Old Staffing', slug: 'oldstaffing', url: 'http://localhost:8080/oldstaffing', inactive_at: new Date('2025-06-30T00:00:00Z') },
];

const tenantSettings: Record<string, Record<string, unknown>> = {
  acme: {
    info: { sender: 'Acme', warning_1: 100, warning_2: 20, paused: false, warned: false },
    system_sms: { value: true },
    sms_sign: { name: 'Acme Recruiting' },
    sms_credits: 500,
    integrations: { alva: true, refapp: false, sri: false, sri_ref: false, evali: true },
  },
  nordictalent: { system_sms: { value: false } },
};

/**
 * Demo data for `npm start` on a laptop. Refused in production by configuration (SEED_DEMO), and
 * again here. Runs on every start, so it only ever adds: a demo client, tenant or account is
 * created when missing and never written again. Whatever was changed since (a secret rotated with
 * `npm run client`, a role revoked with `npm run operator`, a setting saved in the console, a
 * credential removed by its owner) stays changed across restarts.
 *
 * Answers whether anything was created.
 */
export async function seedDemo(ctx: Pick<Context, 'db' | 'secretBox' | 'config' | 'logger'>): Promise<boolean> {
  if (ctx.config.env === 'production') throw new Error('Demo data is refused in production');
  const clients = await seedClients(ctx);

  // Hashing takes a moment: only when an account is going to be created.
  const present = new Set<string>(await ctx.db('accounts').whereIn('email', accounts.map((a) => a.email)).pluck('email'));
  const missing = accounts.filter((account) => !present.has(account.email));
  const passwordHash = missing.length ? await hashPassword(demoPassword.normalize('NFKC')) : '';

  const created = await ctx.db.transaction(async (trx) => {
    const tenantIds = await seedTenants(trx);
    let createdAccounts = 0;
    for (const account of missing) {
      if (await seedAccount(trx, ctx.secretBox, account, tenantIds.all, passwordHash)) createdAccounts += 1;
    }
    return { tenants: tenantIds.created, accounts: createdAccounts };
  });

  if (clients + created.tenants + created.accounts === 0) return false;
  ctx.logger.info({ clients, ...created }, 'demo data seeded');
  return true;
}

/** Creates the missing demo tenants, each with its settings. Answers the ids of all of them by slug. */
async function seedTenants(trx: Knex.Transaction): Promise<{ all: Map<string, string>; created: number }> {
  const all = new Map<string, string>();
  let created = 0;
  for (const tenant of tenants) {
    const [row] = await trx('tenants').insert(tenant).onConflict('slug').ignore().returning('id');
    if (row) {
      created += 1;
      for (const [key, value] of Object.entries(tenantSettings[tenant.slug] ?? {})) {
        await trx('tenant_settings').insert({ tenant_id: row.id, key, value: JSON.stringify(value) });
      }
    }
    all.set(tenant.slug, row ? row.id : (await trx('tenants').where({ slug: tenant.slug }).first('id')).id);
  }
  return { all, created };
}

/**
 * Creates one demo account with its credentials, tenant access and operator role. An account
 * that exists (created meanwhile by a concurrent start) is left as it is: answers false.
 */
async function seedAccount(
  trx: Knex.Transaction,
  secretBox: Context['secretBox'],
  account: DemoAccount,
  tenantIds: Map<string, string>,
  passwordHash: string,
): Promise<boolean> {
  const [row] = await trx('accounts')
    .insert({
      email: account.email,
      name: account.name,
      is_user: account.is_user,
      is_stakeholder: account.is_stakeholder,
      email_verified: true,
      password_reset_required: account.password_reset_required ?? false,
    })
    .onConflict('email')
    .ignore()
    .returning('id');
  if (!row) return false;
  const accountId: string = row.id;
  if (account.password) await trx('credentials').insert({ account_id: accountId, type: 'password', secret: passwordHash });
  const secrets: readonly string[] = demoTotpSecrets[account.email as keyof typeof demoTotpSecrets] ?? [];
  for (const [index, secret] of secrets.entries()) {
    await trx('credentials').insert({
      account_id: accountId,
      type: 'totp',
      secret: secretBox.seal(secret),
      data: JSON.stringify({ label: `Authenticator ${index + 1}` }),
    });
  }
  for (const access of account.tenants) {
    await trx('tenant_access').insert({
      account_id: accountId,
      tenant_id: tenantIds.get(access.slug),
      role: access.role ?? 'user',
      active: access.active ?? true,
    });
  }
  if (account.operator) await trx('operator_roles').insert({ account_id: accountId, role: account.operator });
  return true;
}

/**
 * athena's redirect and post-logout URIs under ATHENA_URL, with or without its trailing slash:
 * `http://localhost:4000` and `http://localhost:4000/` both give `http://localhost:4000/callback`
 * and `http://localhost:4000/`; a path is kept (`https://example.com/athena` gives
 * `https://example.com/athena/callback` and `https://example.com/athena/`).
 */
export function athenaUris(athenaUrl: string | undefined): { redirect: string; postLogout: string } {
  const base = new URL(athenaUrl ?? 'http://localhost:4000/');
  base.search = '';
  base.hash = '';
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  return { redirect: new URL('callback', base).href, postLogout: base.href };
}

function demoClients(athenaUrl: string | undefined): ClientInput[] {
  const athena = athenaUris(athenaUrl);
  return [
    {
      client_id: 'athena',
      client_name: 'Sharing portal',
      redirect_uris: [athena.redirect],
      post_logout_redirect_uris: [athena.postLogout],
      client_secret: 'athena-demo-secret-change-me',
    },
    {
      client_id: 'demo-app',
      client_name: 'Demo recruiting app',
      redirect_uris: ['http://localhost:8080/callback'],
      post_logout_redirect_uris: ['http://localhost:8080/'],
      client_secret: 'demo-app-secret',
    },
    {
      client_id: 'demo-spa',
      client_name: 'Demo single-page app',
      redirect_uris: ['http://localhost:5173/callback'],
      post_logout_redirect_uris: ['http://localhost:5173/'],
      public: true,
    },
  ];
}

/**
 * Registers the missing demo clients; an existing one keeps what `npm run client -- update` and
 * `rotate-secret` made of it. So a changed ATHENA_URL does not reach an existing athena client:
 * the start says so, with the command that changes it. Answers how many were created.
 */
async function seedClients(ctx: Pick<Context, 'db' | 'config' | 'logger'>): Promise<number> {
  let created = 0;
  for (const client of demoClients(ctx.config.athenaUrl)) {
    if (!('refused' in (await insertClient(ctx.db, client)))) created += 1;
    else if (client.client_id === 'athena' && ctx.config.athenaUrl) await noteStaleAthena(ctx, client);
  }
  return created;
}

async function noteStaleAthena(ctx: Pick<Context, 'db' | 'logger'>, wanted: ClientInput): Promise<void> {
  const row = await ctx.db('oidc_clients').where({ client_id: 'athena' }).first('metadata');
  const stored = typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata;
  const [redirect] = wanted.redirect_uris;
  const [postLogout] = wanted.post_logout_redirect_uris ?? [];
  if (stored.redirect_uris.includes(redirect) && (stored.post_logout_redirect_uris ?? []).includes(postLogout)) return;
  ctx.logger.warn(
    { redirect_uris: stored.redirect_uris, post_logout_redirect_uris: stored.post_logout_redirect_uris },
    `demo client athena keeps its registered URIs, not those of ATHENA_URL; to use them: npm run client -- update athena --redirect ${redirect} --logout ${postLogout}`,
  );
}
