import type { Context } from '../src/context.ts';
import { hashPassword } from '../src/credentials/password/hashing.ts';
import { upsertClient } from '../src/oidc/clients.ts';

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

const acmeSettings: Record<string, unknown> = {
  info: { sender: 'Acme', warning_1: 100, warning_2: 20, paused: false, warned: false },
  system_sms: { value: true },
  sms_sign: { name: 'Acme Recruiting' },
  sms_credits: 500,
  integrations: { alva: true, refapp: false, sri: false, sri_ref: false, evali: true },
};

/**
 * Demo data for `npm start` on a laptop. Idempotent: does nothing when the demo operator exists.
 * Refused in production by configuration (SEED_DEMO), and again here.
 */
export async function seedDemo(ctx: Pick<Context, 'db' | 'secretBox' | 'config' | 'logger'>): Promise<boolean> {
  if (ctx.config.env === 'production') throw new Error('Demo data is refused in production');
  await seedClients(ctx);
  const existing = await ctx.db('accounts').where({ email: 'operator@example.com' }).first('id');
  if (existing) return false;

  const passwordHash = await hashPassword(demoPassword.normalize('NFKC'));

  await ctx.db.transaction(async (trx) => {
    const tenantIds = new Map<string, string>();
    for (const tenant of tenants) {
      const [row] = await trx('tenants').insert(tenant).returning('id');
      tenantIds.set(tenant.slug, row.id);
    }
    for (const [key, value] of Object.entries(acmeSettings)) {
      await trx('tenant_settings').insert({ tenant_id: tenantIds.get('acme'), key, value: JSON.stringify(value) });
    }
    await trx('tenant_settings').insert({ tenant_id: tenantIds.get('nordictalent'), key: 'system_sms', value: JSON.stringify({ value: false }) });

    for (const account of accounts) {
      const [row] = await trx('accounts')
        .insert({
          email: account.email,
          name: account.name,
          is_user: account.is_user,
          is_stakeholder: account.is_stakeholder,
          email_verified: true,
          password_reset_required: account.password_reset_required ?? false,
        })
        .returning('id');
      const accountId: string = row.id;
      if (account.password) await trx('credentials').insert({ account_id: accountId, type: 'password', secret: passwordHash });
      const secrets: readonly string[] = demoTotpSecrets[account.email as keyof typeof demoTotpSecrets] ?? [];
      for (const [index, secret] of secrets.entries()) {
        await trx('credentials').insert({
          account_id: accountId,
          type: 'totp',
          secret: ctx.secretBox.seal(secret),
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
    }
  });

  ctx.logger.info({ accounts: accounts.length, tenants: tenants.length }, 'demo data seeded');
  return true;
}

/** The demo clients; upserted on every seed so a changed ATHENA_URL takes effect. */
async function seedClients(ctx: Pick<Context, 'db' | 'config'>): Promise<void> {
  await upsertClient(ctx.db, {
    client_id: 'athena',
    client_name: 'Sharing portal',
    redirect_uris: [`${ctx.config.athenaUrl ?? 'http://localhost:4000'}/callback`],
    post_logout_redirect_uris: [ctx.config.athenaUrl ?? 'http://localhost:4000/'],
    client_secret: 'athena-demo-secret-change-me',
  });
  await upsertClient(ctx.db, {
    client_id: 'demo-app',
    client_name: 'Demo recruiting app',
    redirect_uris: ['http://localhost:8080/callback'],
    post_logout_redirect_uris: ['http://localhost:8080/'],
    client_secret: 'demo-app-secret',
  });
  await upsertClient(ctx.db, {
    client_id: 'demo-spa',
    client_name: 'Demo single-page app',
    redirect_uris: ['http://localhost:5173/callback'],
    post_logout_redirect_uris: ['http://localhost:5173/'],
    public: true,
  });
}
