import { randomBytes } from 'node:crypto';
import bcrypt from 'bcrypt';
import { hashPassword } from '../../src/credentials/password/hashing.ts';
import type { Db } from '../../src/db/knex.ts';

export interface AccountOptions {
  email?: string;
  name?: string;
  /** The language chosen in the profile; none by default, as for any account that never chose one. */
  locale?: 'en' | 'sv';
  is_user?: boolean;
  is_stakeholder?: boolean;
  password_reset_required?: boolean;
  /** Stored as argon2id. */
  password?: string;
  /** Stored as an imported bcrypt hash (cost 4: fast tests, same format). */
  bcryptPassword?: string;
  /** Upstream providers, e.g. ['accounts.google.com']. */
  oidc?: string[];
  /** Number of TOTP credentials. */
  totp?: number;
}

export interface AccountFixture {
  id: string;
  email: string;
}

export function uniqueEmail(label = 'person'): string {
  return `${label}-${randomBytes(4).toString('hex')}@example.com`;
}

/** An account and its credentials, written straight to the test database (no demo seed). */
export async function createAccount(db: Db, options: AccountOptions = {}): Promise<AccountFixture> {
  const email = options.email ?? uniqueEmail();
  const [row] = await db('accounts')
    .insert({
      email,
      name: options.name ?? email.split('@')[0],
      locale: options.locale ?? null,
      is_user: options.is_user ?? true,
      is_stakeholder: options.is_stakeholder ?? false,
      password_reset_required: options.password_reset_required ?? false,
    })
    .returning('id');
  const id = (row as { id: string }).id;
  const credentials: Record<string, unknown>[] = [];
  if (options.password) credentials.push({ type: 'password', secret: await hashPassword(options.password.normalize('NFKC')) });
  if (options.bcryptPassword) credentials.push({ type: 'password', secret: await bcrypt.hash(options.bcryptPassword, 4) });
  for (const provider of options.oidc ?? []) {
    credentials.push({ type: 'oidc', provider, subject: `${provider}:${randomBytes(6).toString('hex')}` });
  }
  for (let i = 0; i < (options.totp ?? 0); i += 1) credentials.push({ type: 'totp', secret: 'v1.sealed.placeholder' });
  if (credentials.length > 0) await db('credentials').insert(credentials.map((c) => ({ account_id: id, ...c })));
  return { id, email };
}

export async function passwordHashOf(db: Db, accountId: string): Promise<string> {
  const row = await db('credentials').where({ account_id: accountId, type: 'password' }).first('secret');
  return (row as { secret: string }).secret;
}
