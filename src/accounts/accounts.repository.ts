import type { Knex } from 'knex';

/** The base knex or an open transaction: repositories take either, so PGlite's one connection is reused. */
export type Queryable = Knex | Knex.Transaction;

export interface AccountRecord {
  id: string;
  email: string;
  name: string;
  image: string | null;
  /** 'sv' or 'en' as the person chose in the profile; null: never chosen (the browser's language applies). */
  locale: string | null;
  is_user: boolean;
  is_stakeholder: boolean;
  email_verified: boolean;
  password_reset_required: boolean;
  last_login_at: Date | null;
  locked_until: Date | null;
}

/** The columns of an AccountRecord, for every query that reads one. */
export const accountColumns = [
  'id',
  'email',
  'name',
  'image',
  'locale',
  'is_user',
  'is_stakeholder',
  'email_verified',
  'password_reset_required',
  'last_login_at',
  'locked_until',
] as const;

/** The key every per-email counter and lookup uses: trimmed and lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Case-insensitive (accounts.email is citext). */
export async function findAccountByEmail(db: Queryable, email: string): Promise<AccountRecord | null> {
  const row = await db('accounts').where({ email: normalizeEmail(email) }).first(...accountColumns);
  return (row as AccountRecord | undefined) ?? null;
}

export async function findAccountById(db: Queryable, id: string): Promise<AccountRecord | null> {
  const row = await db('accounts').where({ id }).first(...accountColumns);
  return (row as AccountRecord | undefined) ?? null;
}

/** Mirrors the store's lock for operators' views; the store stays the source of truth. */
export async function setLockedUntil(db: Queryable, id: string, until: Date | null): Promise<void> {
  await db('accounts').where({ id }).update({ locked_until: until });
}

/**
 * Clears the mirror only while it still holds `found` (an operator's unlock, after the store's lock
 * ended): a lock set in between by a new failure keeps its mirror, so it is not hidden from view.
 */
export async function clearLockedUntil(db: Queryable, id: string, found: Date | null): Promise<void> {
  if (found) await db('accounts').where({ id, locked_until: found }).update({ locked_until: null });
}

/**
 * The end of a mirrored lock still in force, else null. The mirror is cleared by a sign-in that
 * ends the lock (or an operator's unlock), not when the lock runs out, so a past end is no lock.
 * Compare on ctx.now()'s clock, as the lock itself is read.
 */
export function lockInForce(lockedUntil: Date | null, now: Date): Date | null {
  return lockedUntil && lockedUntil.getTime() > now.getTime() ? lockedUntil : null;
}

export async function clearPasswordResetRequired(db: Queryable, id: string, at: Date): Promise<void> {
  await db('accounts').where({ id }).update({ password_reset_required: false, updated_at: at });
}
