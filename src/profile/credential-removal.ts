import type Provider from 'oidc-provider';
import { findAccountById } from '../accounts/accounts.repository.ts';
import { recordAudit } from '../audit/audit.ts';
import type { Context } from '../context.ts';
import { countCredentials, listCredentials, type CredentialRecord, type CredentialType } from '../credentials/credentials.repository.ts';
import { lockAccountRow } from '../credentials/totp/totp.repository.ts';
import { errors } from '../http/app-error.ts';
import { endSignInsInProgress } from '../login/login-session.ts';
import { firstFactorCredentials } from '../login/next-step.ts';
import { forgetRememberedDevices } from './device-revocation.ts';
import { profileErrors } from './profile-errors.ts';
import { deleteCredential, isOperator } from './profile.repository.ts';
import { notifySecurityChange, type SecurityChange } from './security-notice.ts';
import { signOutOtherSessions, type SessionRequest } from './sessions.service.ts';
import { assertRecentSignIn, assertSecondFactorSession } from './signed-in.ts';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const firstFactorTypes = new Set(['password', 'oidc', 'webauthn']);
const secondFactorTypes = new Set(['totp', 'webauthn']);

/**
 * DELETE /oauth2/userinfo/credentials/{id}: the signed-in person removes one of their credentials.
 * The rules, checked in this order inside one transaction that holds the account row's lock (two
 * removals at once cannot both pass a "keep at least one" rule):
 *
 * 1. Only one's own credentials. An unknown id, a malformed one and another person's all answer
 *    404 `not_found` (never 403): ids reveal nothing.
 * 2. The password of a User account is never removed (spec: "credential deletion allowed except
 *    password credentials on user accounts"; its password switch is disabled) → 409
 *    `credential/password-required`.
 * 3. The last way to sign in. Every account can always sign in with a code sent by email, so no
 *    removal can lock anyone out; what is protected is a User's durable first factor. A User
 *    account keeps at least one password, Google/Microsoft or passkey credential once it has one
 *    (for the reason rule 2 exists: recruiters are not left with their mailbox as their only key);
 *    with rule 2 this only bites on a User without a password removing its last upstream or
 *    passkey credential → 409 `credential/last-sign-in-method`. A User that never had one has
 *    nothing to remove, and a Stakeholder may remove its last one and sign in by email code, as
 *    the spec allows for everyone. TOTP is never a way to sign in on its own and is not counted.
 * 4. Every removal changes how the person signs in, so it needs a sign-in within the last 5
 *    minutes → 403 `reauthentication_required`: a stolen or forgotten-open session alone cannot
 *    strip an account's MFA or its upstream and password sign-ins.
 * 5. An operator account keeps a TOTP or a passkey → 409 `credential/second-factor-required`,
 *    and removes one only from a session that proved one (assertSecondFactorSession).
 *
 * On success (204) the removal is audited (`passkey.removed` for a passkey, else
 * `credential.removed`) and the holder is mailed one notice of the removal. Then every other
 * sign-in of the account ends (signOutOtherSessions: Nyckel sessions, OP sessions, applications'
 * refresh tokens, browsers remembered for the TOTP step, known browsers' standing), this browser's
 * excepted: a credential is mostly removed because its device was lost or stolen, and the thief's
 * sessions opened with it must not outlive it. A session records how it signed in (amr), not with
 * which credential, so the others all go, as a password change with "sign out other sessions"
 * does. When the account's last TOTP goes, its remembered devices go too, this browser's included
 * (`devices.revoked_all`): they were remembered on the strength of that authenticator.
 *
 * Answers this browser's renewed known-browser cookie, to be set (it keeps its standing).
 */
export async function removeCredential(
  ctx: Context,
  provider: Provider,
  request: SessionRequest,
  credentialId: string,
  /** Only a credential of this type may go (DELETE /auth/passkeys/{id}); any other id is 404. */
  onlyType?: CredentialType,
): Promise<{ knownBrowser: string | undefined }> {
  const { session, info } = request;
  if (!uuid.test(credentialId)) throw errors.notFound();
  const now = ctx.now();
  const { removed, rest } = await ctx.db.transaction(async (trx) => {
    if (!(await lockAccountRow(trx, session.account_id))) throw errors.unauthorized();
    const account = await findAccountById(trx, session.account_id);
    if (!account) throw errors.unauthorized();
    const credentials = await listCredentials(trx, account.id);
    const target = credentials.find((c) => c.id === credentialId);
    if (!target || (onlyType && target.type !== onlyType)) throw errors.notFound();
    const others = credentials.filter((c) => c.id !== target.id);

    if (target.type === 'password' && account.is_user) throw profileErrors.passwordRequired();
    if (account.is_user && firstFactorTypes.has(target.type) && firstFactorCredentials(countCredentials(others)) === 0) {
      throw profileErrors.lastSignInMethod();
    }
    assertRecentSignIn(session, now);
    if (secondFactorTypes.has(target.type)) {
      // The last one stays whoever asks; another goes only with a session that proved one.
      if ((await isOperator(trx, account.id)) && !others.some((c) => secondFactorTypes.has(c.type))) throw profileErrors.operatorSecondFactor();
      await assertSecondFactorSession({ db: trx }, session);
    }

    await deleteCredential(trx, target.id);
    await recordAudit(trx, {
      action: target.type === 'webauthn' ? 'passkey.removed' : 'credential.removed',
      actor_id: account.id,
      target_account_id: account.id,
      ip: info.ip,
      user_agent: info.userAgent,
      details: { credential_id: target.id, type: target.type, provider: target.provider, via: 'profile' },
      at: now,
    });
    return { removed: target, rest: others };
  });
  const change: SecurityChange = removed.type === 'webauthn' ? 'passkey_removed' : removed.type === 'totp' ? 'totp_removed' : 'credential_removed';
  // The notice first, as the change is committed: the store work below may fail, and must not silence it.
  await notifySecurityChange(ctx, session.account_id, { change, credentialType: removed.type }, info);
  if (removed.type === 'totp' && !rest.some((c: CredentialRecord) => c.type === 'totp')) {
    await forgetRememberedDevices(ctx, session.account_id, { reason: 'totp_removed', actorId: session.account_id, ...info });
  }
  // As after a password change: a sign-in that proved the removed credential does not finish now.
  await endSignInsInProgress(ctx, session.account_id);
  const { knownBrowser } = await signOutOtherSessions(ctx, provider, request);
  return { knownBrowser };
}
