import type { Queryable } from '../../accounts/accounts.repository.ts';
import { recordAudit } from '../../audit/audit.ts';
import type { Context } from '../../context.ts';
import { profileErrors } from '../../profile/profile-errors.ts';
import { claimTimeStep, matchTotp, newTotpSecret, totpUri } from './totp.ts';
import { deleteOtherTotpCredentials, insertTotpCredential, lockAccountRow } from './totp.repository.ts';

/** A secret shown on the setup page waits 10 minutes for its first code. */
export const enrolmentTtlSeconds = 600;

/**
 * The secret being set up, held in the store under the portal session that asked for it (never
 * in the browser's cookie): `totp-enrol:<portal session id>`. Sealed like the stored credentials.
 */
interface PendingEnrolment {
  account_id: string;
  sealed_secret: string;
  /** ms on ctx.now()'s clock. */
  expires_at: number;
}

type EnrolContext = Pick<Context, 'store' | 'secretBox' | 'now'>;

export interface EnrolmentOwner {
  /** The portal session id. */
  id: string;
  account_id: string;
  email: string;
}

export interface PendingSecret {
  secret: string;
  otpauth_uri: string;
}

const pendingKey = (portalSessionId: string) => `totp-enrol:${portalSessionId}`;

async function loadPending(ctx: EnrolContext, owner: EnrolmentOwner): Promise<{ raw: string; secret: string } | null> {
  const raw = await ctx.store.get(pendingKey(owner.id));
  if (!raw) return null;
  const pending = JSON.parse(raw) as PendingEnrolment;
  if (pending.account_id !== owner.account_id || pending.expires_at <= ctx.now().getTime()) return null;
  try {
    return { raw, secret: ctx.secretBox.open(pending.sealed_secret) };
  } catch {
    return null;
  }
}

/**
 * The pending secret of this portal session, created when there is none. The setup page asks for
 * the JSON and the QR image at the same moment: setIfAbsent makes both see one secret.
 */
export async function pendingEnrolment(ctx: EnrolContext, owner: EnrolmentOwner): Promise<PendingSecret> {
  const shape = (secret: string): PendingSecret => ({ secret, otpauth_uri: totpUri(owner.email, secret) });
  const existing = await loadPending(ctx, owner);
  if (existing) return shape(existing.secret);

  const secret = newTotpSecret();
  const record: PendingEnrolment = {
    account_id: owner.account_id,
    sealed_secret: ctx.secretBox.seal(secret),
    expires_at: ctx.now().getTime() + enrolmentTtlSeconds * 1000,
  };
  if (await ctx.store.setIfAbsent(pendingKey(owner.id), JSON.stringify(record), enrolmentTtlSeconds)) return shape(secret);
  // Another request created one in between: use it. Otherwise a stale entry is in the way.
  const raced = await loadPending(ctx, owner);
  if (raced) return shape(raced.secret);
  await ctx.store.set(pendingKey(owner.id), JSON.stringify(record), enrolmentTtlSeconds);
  return shape(secret);
}

/**
 * Activates the pending secret with a code of it: stores it sealed as a `totp` credential and
 * deletes the account's other TOTP credentials in the same transaction (one two-factor method
 * is kept; Re-register replaces). The pending secret is taken with getDel, so of two concurrent
 * activations one wins and the other answers `totp/no-pending`. The code's time step is claimed
 * for the new credential before the transaction commits, so no sign-in can see the credential
 * without it: neither the code just typed nor an earlier one of the window works at a sign-in.
 *
 * `mayActivate` runs first under the account row's lock, which every change to the account's
 * credentials takes, and throws to refuse: the caller's rule is checked against the credentials
 * as they are at this moment, not as they were when the secret was issued.
 */
export async function activateTotp(
  ctx: Pick<Context, 'store' | 'secretBox' | 'now' | 'db'>,
  owner: EnrolmentOwner,
  code: string,
  info: { ip: string | null; userAgent: string | null },
  mayActivate: (trx: Queryable) => Promise<void>,
): Promise<{ id: string; replaced: string[] }> {
  const pending = await loadPending(ctx, owner);
  if (!pending) throw profileErrors.totpNoPending();
  const step = await matchTotp(pending.secret, code, ctx.now());
  if (step === null) throw profileErrors.totpInvalid();
  if ((await ctx.store.getDel(pendingKey(owner.id))) !== pending.raw) throw profileErrors.totpNoPending();

  const now = ctx.now();
  return ctx.db.transaction(async (trx) => {
    await lockAccountRow(trx, owner.account_id);
    await mayActivate(trx);
    const id = await insertTotpCredential(trx, owner.account_id, ctx.secretBox.seal(pending.secret), now);
    await claimTimeStep(ctx, id, step);
    const replaced = await deleteOtherTotpCredentials(trx, owner.account_id, id);
    await recordAudit(trx, {
      action: 'totp.activated',
      actor_id: owner.account_id,
      target_account_id: owner.account_id,
      ip: info.ip,
      user_agent: info.userAgent,
      details: { credential_id: id, replaced_credential_ids: replaced },
      at: now,
    });
    return { id, replaced };
  });
}
