import { loginErrors } from '../../login/login-errors.ts';
import { upgradeCredentialSecret } from '../credentials.repository.ts';
import type { Verifier, VerifyResult } from '../verifier.ts';
import { verifyAgainstDummy, verifyPassword } from './hashing.ts';

export interface PasswordProof {
  password: string;
}

const invalid = (): VerifyResult => ({ ok: false, error: loginErrors.invalidCredentials(), countsAsFailure: true });

/**
 * Password as a first factor. An unknown account, or one without a password, is checked against
 * a dummy argon2id hash and gets the same `invalid_credentials` as a wrong password: neither the
 * answer nor its timing says which it was. A legacy bcrypt hash that verifies is upgraded, unless a
 * new password replaced it meanwhile.
 */
export const passwordVerifier: Verifier<PasswordProof> = {
  kind: 'first',
  acceptedIn: ['CredentialsRequired'],
  async verify({ ctx, account, credentials }, { password }) {
    const credential = credentials.find((c) => c.type === 'password' && c.secret);
    if (!account || !credential?.secret) {
      await verifyAgainstDummy(password);
      return invalid();
    }
    const outcome = await verifyPassword(credential.secret, password);
    if (!outcome.ok) return invalid();
    if (outcome.upgradedHash) await upgradeCredentialSecret(ctx.db, credential.id, credential.secret, outcome.upgradedHash);
    return { ok: true, factor: 'password', amr: ['pwd'], credentialId: credential.id };
  },
};
