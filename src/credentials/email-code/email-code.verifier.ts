import { loginErrors } from '../../login/login-errors.ts';
import type { Verifier } from '../verifier.ts';
import { redeemEmailCode } from './email-code.ts';

export interface EmailCodeProof {
  code: string;
}

/**
 * The emailed 6-digit code as a first factor (amr `otp`). It is never a second factor: an
 * account with TOTP still passes MfaRequired after it. For an unknown email no code can match
 * (see issueEmailCode), so every try answers `otp/invalid` and counts like a real one.
 */
export const emailCodeVerifier: Verifier<EmailCodeProof> = {
  kind: 'first',
  acceptedIn: ['OTPRequired'],
  async verify({ ctx, session }, { code }) {
    const outcome = await redeemEmailCode(ctx, session.id, code, ctx.config.loginSessionTtl);
    switch (outcome) {
      case 'ok':
        return { ok: true, factor: 'email_code', amr: ['otp'], credentialId: null };
      case 'invalid':
        return { ok: false, error: loginErrors.otpInvalid(), countsAsFailure: true };
      case 'retries_exceeded':
        return { ok: false, error: loginErrors.otpRetriesExceeded(), countsAsFailure: true };
      case 'expired':
        return { ok: false, error: loginErrors.otpSessionInvalid(), countsAsFailure: false };
    }
  },
};
