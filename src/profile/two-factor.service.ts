import QRCode from 'qrcode';
import { recordAudit } from '../audit/audit.ts';
import type { Context } from '../context.ts';
import { activateTotp, pendingEnrolment, type PendingSecret } from '../credentials/totp/enrolment.ts';
import { errors } from '../http/app-error.ts';
import { listRememberedDevices, revokeRememberedDevice, type DeviceListing } from '../login/remembered-device.ts';
import { raisePortalSession, type PortalSessionWithId } from '../session/portal-session.ts';
import { forgetRememberedDevices } from './device-revocation.ts';
import { profileErrors } from './profile-errors.ts';
import { notifySecurityChange } from './security-notice.ts';
import { assertRecentSignIn, assertSecondFactorSession } from './signed-in.ts';

export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
}

const owner = (session: PortalSessionWithId) => ({ id: session.id, account_id: session.account_id, email: session.email });

/** GET /auth/tfa/setup: the pending secret of this portal session (created if none). */
export async function startEnrolment(ctx: Context, session: PortalSessionWithId): Promise<PendingSecret> {
  assertRecentSignIn(session, ctx.now());
  await assertSecondFactorSession(ctx, session);
  return pendingEnrolment(ctx, owner(session));
}

/** A PNG QR code of an otpauth URI (deterministic: the same URI gives the same bytes). */
export function qrCodePng(uri: string): Promise<Buffer> {
  return QRCode.toBuffer(uri, { type: 'png', errorCorrectionLevel: 'M', margin: 2, width: 256 });
}

/** GET /auth/qrcode: the same pending otpauth URI as a PNG QR code. */
export async function enrolmentQrCode(ctx: Context, session: PortalSessionWithId): Promise<Buffer> {
  return qrCodePng((await startEnrolment(ctx, session)).otpauth_uri);
}

/**
 * POST /auth/tfa/activate. Spaces are dropped (apps show "123 456"). Replacing the authenticator
 * also forgets every remembered device: they were remembered on the strength of the old one,
 * and Re-register is what a person does after losing a phone. The holder is then mailed once:
 * `totp_activated`, or `totp_replaced` when it took the place of another.
 *
 * No recent-sign-in check here: the recent sign-in is asked when the secret is issued (setup,
 * QR code), and activation needs that secret, held in the store under this portal session for
 * 10 minutes, and a code of it. A stale session cannot get a secret to activate; a person who
 * took a while to scan keeps the secret already in their app.
 *
 * The second-factor session check is asked again, under the account's lock: the account may have
 * gained a second factor since the secret was issued (its owner enrolled an app or added a
 * passkey in another browser). A password-only session holding a secret from before must not
 * then replace the owner's app, nor gain `mfa` by activating its own (and with it the right to
 * remove the owner's passkeys). 403 `profile/mfa-required`, as setup answers it now.
 *
 * Answers the credential and the session as it goes on: under a new id when it gained `mfa`
 * (raisePortalSession; the route sets the cookie), null when it was signed out meanwhile.
 */
export async function activateEnrolment(
  ctx: Context,
  session: PortalSessionWithId,
  rawCode: string | null | undefined,
  info: ClientInfo,
): Promise<{ credential: { id: string; type: 'totp' }; session: PortalSessionWithId | null }> {
  const code = (rawCode ?? '').replace(/\s+/g, '');
  if (code === '') throw profileErrors.totpRequired();
  const { id, replaced } = await activateTotp(ctx, owner(session), code, info, (trx) => assertSecondFactorSession({ db: trx }, session));
  const change = replaced.length > 0 ? 'totp_replaced' : 'totp_activated';
  // The notice first, as the change is committed: the store work below may fail, and must not silence it.
  await notifySecurityChange(ctx, session.account_id, { change }, info);
  // The code just given proves the authenticator in this session, which goes on under a new id
  // (see raisePortalSession); null if it was signed out meanwhile.
  const raised = await raisePortalSession(ctx, session, ['otp', 'mfa']);
  await forgetRememberedDevices(ctx, session.account_id, { reason: change, actorId: session.account_id, ...info });
  return { credential: { id, type: 'totp' }, session: raised };
}

export async function listDevices(ctx: Context, session: PortalSessionWithId, cookieId: string | undefined): Promise<{ devices: DeviceListing[] }> {
  return { devices: await listRememberedDevices(ctx, session.account_id, cookieId) };
}

/** Revoking a device only removes trust, so it needs no recent sign-in; another's id is 404. */
export async function revokeDevice(ctx: Context, session: PortalSessionWithId, id: string, info: ClientInfo): Promise<void> {
  if (!(await revokeRememberedDevice(ctx, session.account_id, id))) throw errors.notFound();
  await recordAudit(ctx.db, {
    action: 'device.revoked',
    actor_id: session.account_id,
    target_account_id: session.account_id,
    ip: info.ip,
    user_agent: info.userAgent,
    details: { device_id: id },
    at: ctx.now(),
  });
}
