import type { Context } from '../../context.ts';
import { loginErrors } from '../../login/login-errors.ts';
import type { Verifier, VerifyResult } from '../verifier.ts';
import { claimTimeStep, matchTotp } from './totp.ts';

export interface TotpProof {
  code: string;
}

const invalid = (): VerifyResult => ({ ok: false, error: loginErrors.mfaInvalid(), countsAsFailure: true });

/** The seed of a stored credential, or null when it cannot be opened (wrong key, corrupt row). */
export function openTotpSecret(ctx: Pick<Context, 'secretBox' | 'logger'>, credential: { id: string; secret: string | null }): string | null {
  if (!credential.secret) return null;
  try {
    return ctx.secretBox.open(credential.secret);
  } catch {
    // Never the sealed value or the seed in the log: the id says which row to look at.
    ctx.logger.warn({ credential_id: credential.id }, 'TOTP secret cannot be opened');
    return null;
  }
}

/**
 * The authenticator-app code as the second factor (amr `otp`; the login service adds `mfa`).
 * Runs only after a first factor (MfaRequired, TOTPResetRequired). Every TOTP credential of the
 * account is tried, so in TOTPResetRequired the matching one is named in `credentialId`. A code
 * that matches but whose step is not later than one already accepted for that credential (a
 * replay, an older code of the window, or the loser of two simultaneous submissions; see
 * claimTimeStep) answers exactly like a wrong one and counts as a failure.
 */
export const totpVerifier: Verifier<TotpProof> = {
  kind: 'second',
  acceptedIn: ['MfaRequired', 'TOTPResetRequired'],
  async verify({ ctx, account, credentials }, { code }) {
    if (!account) return invalid();
    const at = ctx.now();
    for (const credential of credentials) {
      if (credential.type !== 'totp') continue;
      const secret = openTotpSecret(ctx, credential);
      if (!secret) continue;
      const step = await matchTotp(secret, code, at);
      if (step === null) continue;
      if (!(await claimTimeStep(ctx, credential.id, step))) return invalid();
      return { ok: true, factor: 'totp', amr: ['otp'], credentialId: credential.id };
    }
    return invalid();
  },
};
