import { describe, expect, it } from 'vitest';
import { decideNextStep, type CredentialCounts, type StepFacts } from './next-step.ts';
import type { LoginState } from './steps.ts';

const none: CredentialCounts = { password: 0, oidc: 0, webauthn: 0, totp: 0 };
const account = { passwordResetRequired: false };
const base: StepFacts = {
  account,
  credentials: none,
  firstFactor: null,
  secondFactorVerified: false,
  deviceRemembered: false,
  createCredentialAnswered: false,
};

const cases: [string, Partial<StepFacts>, LoginState][] = [
  // Start
  ['unknown email asks for an email code', { account: null }, 'OTPRequired'],
  ['unknown email stays on the code even if a factor were claimed', { account: null, firstFactor: 'email_code' }, 'OTPRequired'],
  ['migrated account must reset its password', { account: { passwordResetRequired: true }, credentials: { ...none, password: 1 } }, 'PasswordResetRequired'],
  ['reset requirement wins over a verified factor', { account: { passwordResetRequired: true }, firstFactor: 'password' }, 'PasswordResetRequired'],
  ['account without any credential asks for a code', {}, 'OTPRequired'],
  ['account with only TOTP asks for a code', { credentials: { ...none, totp: 1 } }, 'OTPRequired'],
  ['account with a password asks for credentials', { credentials: { ...none, password: 1 } }, 'CredentialsRequired'],
  ['account with Google only asks for credentials', { credentials: { ...none, oidc: 1 } }, 'CredentialsRequired'],
  ['account with a passkey only asks for credentials', { credentials: { ...none, webauthn: 1 } }, 'CredentialsRequired'],
  // first factor verified
  ['password, no TOTP: done', { credentials: { ...none, password: 1 }, firstFactor: 'password' }, 'Done'],
  ['password, two TOTP: keep one', { credentials: { ...none, password: 1, totp: 2 }, firstFactor: 'password' }, 'TOTPResetRequired'],
  ['two TOTP even on a remembered device: keep one', { credentials: { ...none, password: 1, totp: 2 }, firstFactor: 'password', deviceRemembered: true }, 'TOTPResetRequired'],
  ['password, one TOTP: MFA', { credentials: { ...none, password: 1, totp: 1 }, firstFactor: 'password' }, 'MfaRequired'],
  ['password, one TOTP, remembered device: done', { credentials: { ...none, password: 1, totp: 1 }, firstFactor: 'password', deviceRemembered: true }, 'Done'],
  ['password, one TOTP verified: done', { credentials: { ...none, password: 1, totp: 1 }, firstFactor: 'password', secondFactorVerified: true }, 'Done'],
  ['email code is not a second factor: MFA', { credentials: { ...none, totp: 1 }, firstFactor: 'email_code' }, 'MfaRequired'],
  ['email code, two TOTP: keep one', { credentials: { ...none, totp: 3 }, firstFactor: 'email_code' }, 'TOTPResetRequired'],
  ['email code, no credential: offer to create one', { firstFactor: 'email_code' }, 'AskedCreateCredential'],
  ['email code, TOTP verified, no first-factor credential: offer', { credentials: { ...none, totp: 1 }, firstFactor: 'email_code', secondFactorVerified: true }, 'AskedCreateCredential'],
  ['email code, offer answered: done', { firstFactor: 'email_code', createCredentialAnswered: true }, 'Done'],
  ['email code with a password created: done', { credentials: { ...none, password: 1 }, firstFactor: 'email_code' }, 'Done'],
  ['upstream sign-in: done', { credentials: { ...none, oidc: 1 }, firstFactor: 'oidc' }, 'Done'],
  ['passkey with TOTP: done (a user-verified passkey is two factors)', { credentials: { ...none, webauthn: 1, totp: 1 }, firstFactor: 'webauthn' }, 'Done'],
  ['passkey with several TOTP: done, no merge asked', { credentials: { ...none, webauthn: 1, totp: 2 }, firstFactor: 'webauthn' }, 'Done'],
];

describe('decideNextStep', () => {
  it.each(cases)('%s', (_name, facts, expected) => {
    expect(decideNextStep({ ...base, ...facts })).toBe(expected);
  });
});
