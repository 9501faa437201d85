import type { Queryable } from '../accounts/accounts.repository.ts';
import { lockAccountRow } from '../credentials/totp/totp.repository.ts';
import { AppError } from '../http/app-error.ts';

/** Operator roles, least to most: `support` reads, sends reset mails and notifications, ends sign-in locks and signs accounts out everywhere (not of operators); `admin` does everything. */
export const operatorRoles = ['support', 'admin'] as const;
export type OperatorRole = (typeof operatorRoles)[number];

export function isOperatorRole(value: unknown): value is OperatorRole {
  return operatorRoles.includes(value as OperatorRole);
}

/** Whether `role` includes everything `required` may do. */
export function roleAllows(role: OperatorRole, required: OperatorRole): boolean {
  return operatorRoles.indexOf(role) >= operatorRoles.indexOf(required);
}

export async function findOperatorRole(db: Queryable, accountId: string): Promise<OperatorRole | null> {
  const row = (await db('operator_roles').where({ account_id: accountId }).first('role')) as { role: string } | undefined;
  return row && isOperatorRole(row.role) ? row.role : null;
}

export interface OperatorListing {
  account_id: string;
  email: string;
  name: string;
  role: OperatorRole;
  granted_at: Date;
}

export async function listOperators(db: Queryable): Promise<OperatorListing[]> {
  return (await db('operator_roles as o')
    .join('accounts as a', 'a.id', 'o.account_id')
    .orderBy('a.email')
    .select('o.account_id', 'a.email', 'a.name', 'o.role', 'o.granted_at')) as OperatorListing[];
}

/** Credential types that count as an operator's second factor. */
export const secondFactorTypes = ['totp', 'webauthn'] as const;

export const operatorGrantErrors = {
  secondFactorRequired: () =>
    new AppError('operator/second-factor-required', 409, 'An operator account must have an authenticator app (TOTP) or a passkey'),
};

/** Whether the account has a TOTP or a passkey credential. */
export async function hasSecondFactor(db: Queryable, accountId: string): Promise<boolean> {
  return (await db('credentials').where({ account_id: accountId }).whereIn('type', secondFactorTypes).first('id')) !== undefined;
}

/**
 * Grants or changes a role; answers the role the account had before (null: none). An operator
 * account must have a TOTP or a passkey: the console only opens to a session that proved one
 * (operator-guard.ts), and an operator whose account has none would be one phished password and
 * one enrolment away from the console. Refused with 409 `operator/second-factor-required`. Inside a transaction the account row is locked first,
 * as the profile's credential removal does, so a grant and the removal of the last second factor
 * cannot both pass (the profile keeps an operator's last one: credential-removal.ts).
 */
export async function grantOperatorRole(
  db: Queryable,
  input: { accountId: string; role: OperatorRole; grantedBy: string | null; at: Date },
): Promise<OperatorRole | null> {
  await lockAccountRow(db, input.accountId);
  if (!(await hasSecondFactor(db, input.accountId))) throw operatorGrantErrors.secondFactorRequired();
  const previous = await findOperatorRole(db, input.accountId);
  await db('operator_roles')
    .insert({ account_id: input.accountId, role: input.role, granted_by: input.grantedBy, granted_at: input.at })
    .onConflict('account_id')
    .merge({ role: input.role, granted_by: input.grantedBy, granted_at: input.at });
  return previous;
}

/** Removes the account's role; answers the role it had (null: it had none). */
export async function revokeOperatorRole(db: Queryable, accountId: string): Promise<OperatorRole | null> {
  const rows = (await db('operator_roles').where({ account_id: accountId }).delete().returning('role')) as { role: string }[];
  const role = rows[0]?.role;
  return isOperatorRole(role) ? role : null;
}
