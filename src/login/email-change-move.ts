import { findAccountByEmail, normalizeEmail, type Queryable } from '../accounts/accounts.repository.ts';
import { emailChangeTtlSeconds, type PendingEmailChange } from '../accounts/pending-email-change.ts';
import { findOperatorRole } from '../admin/operators.repository.ts';
import { recordAudit } from '../audit/audit.ts';
import { deleteOidcCredentials } from '../credentials/oidc/oidc-credentials.repository.ts';
import { lockAccountRow } from '../credentials/totp/totp.repository.ts';
import { revokeResetTokens, type ClientInfo } from './reset.service.ts';

/**
 * The database side of an operator's email change, confirmed from its link
 * (email-change.service.ts): the move in one transaction with its audit rows, and whether this
 * very change was committed before (its `change_id`).
 */

export interface Moved {
  /** Google or Microsoft links were removed. */
  unlinked: boolean;
}

/**
 * The change, holding the account's row (as every writer of its password and links does). This
 * very change committed already (committedBefore) is answered as made, writing nothing again,
 * before the requester's role is looked at: it was valid when committed.
 * Else answers the refusal, having written nothing, unless:
 * - the operator who asked is still an admin (`requester_not_admin`, 406);
 * - the account still has the address the operator saw (`address_changed`, 406): something
 *   changed it meanwhile, and a confirmation must not undo that;
 * - the account still holds no operator role (`operator_account`, 406): one granted since the
 *   request would otherwise let the change move an operator's account (the request refuses those);
 * - the new address is still free (`email_taken`, 409 `account/email-taken`; the unique index
 *   answers the same for an account created with it at this very moment).
 * Else the email is set and marked verified (this link proved the mailbox), and the account's
 * reset links die: one mailed to the old address must not set the password after the move. Every
 * linked Google or Microsoft identity is unlinked, each audited as `credential.removed` (via
 * `email_change`). They were mostly linked through the old address, often a work account of the
 * employer's Workspace or Entra tenant: whoever runs that domain keeps that identity, and through
 * the link would go on signing in as the person, now by typing the new address. Which of them are
 * the person's own cannot be told from here, so all go; the person links again from the profile.
 */
export async function moveAccount(trx: Queryable, pending: PendingEmailChange, client: Pick<ClientInfo, 'ip' | 'userAgent'>, now: Date): Promise<Moved | Refusal> {
  if (!(await lockAccountRow(trx, pending.accountId))) return 'account_gone';
  const account = (await trx('accounts').where({ id: pending.accountId }).first('email')) as { email: string };
  if (normalizeEmail(account.email) === pending.newEmail) {
    const made = await committedBefore(trx, pending);
    if (made) return made;
  }
  if ((await findOperatorRole(trx, pending.operatorId)) !== 'admin') return 'requester_not_admin';
  if (normalizeEmail(account.email) !== pending.previousEmail) return 'address_changed';
  if ((await findOperatorRole(trx, pending.accountId)) !== null) return 'operator_account';
  const holder = await findAccountByEmail(trx, pending.newEmail);
  if (holder && holder.id !== pending.accountId) return 'email_taken';
  try {
    // A savepoint: the unique violation of a racing insert must not abort the whole transaction.
    await trx.transaction((sp) => sp('accounts').where({ id: pending.accountId }).update({ email: pending.newEmail, email_verified: true, updated_at: now }));
  } catch (error) {
    if ((error as { code?: string }).code === '23505') return 'email_taken';
    throw error;
  }
  await revokeResetTokens(trx, pending.accountId);
  const links = await deleteOidcCredentials(trx, pending.accountId);
  await recordAudit(trx, {
    action: 'account.email_changed',
    target_account_id: pending.accountId,
    ip: client.ip,
    user_agent: client.userAgent,
    details: { previous_email: pending.previousEmail, email: pending.newEmail, requested_by: pending.operatorId, ...changeIdOf(pending) },
    at: now,
  });
  for (const link of links) {
    await recordAudit(trx, {
      action: 'credential.removed',
      target_account_id: pending.accountId,
      ip: client.ip,
      user_agent: client.userAgent,
      details: { credential_id: link.id, type: 'oidc', provider: link.provider, via: 'email_change', ...changeIdOf(pending) },
      at: now,
    });
  }
  return { unlinked: links.length > 0 };
}

/** The change's id for its audit rows: a random id, never the token or a hash of it (audit.ts). */
const changeIdOf = (pending: PendingEmailChange) => (pending.changeId === undefined ? {} : { change_id: pending.changeId });

/**
 * This change as its own earlier confirmation committed it, told by the `change_id` of its
 * `account.email_changed` row (and of the `credential.removed` rows, which say whether Google or
 * Microsoft links went), or null: a change kept before changes had ids cannot be told from
 * another's, and is not taken for its own. Only rows of about the link's lifetime are read, off
 * the (target_account_id, at) index, as anyone can add rows about an account (a failed sign-in
 * naming it): from an hour before the link was made, as the instance that made it may have a clock
 * ahead of this one's.
 */
export async function committedBefore(trx: Queryable, pending: PendingEmailChange): Promise<Moved | null> {
  if (pending.changeId === undefined) return null;
  const rows = (await trx('audit_events')
    .where({ target_account_id: pending.accountId })
    .where('at', '>=', new Date(pending.expiresAt - 2 * emailChangeTtlSeconds * 1000))
    .whereIn('action', ['account.email_changed', 'credential.removed'])
    .whereRaw("details->>'change_id' = ?", [pending.changeId])
    .select('action')) as { action: string }[];
  if (!rows.some((row) => row.action === 'account.email_changed')) return null;
  return { unlinked: rows.some((row) => row.action === 'credential.removed') };
}

/** Why a confirmation was refused; each answers 406 `invalid_token` but a taken address (409). */
export type Refusal = 'requester_not_admin' | 'account_gone' | 'address_changed' | 'operator_account' | 'email_taken';
