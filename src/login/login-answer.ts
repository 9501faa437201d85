import type { AccountRecord } from '../accounts/accounts.repository.ts';
import type { Context } from '../context.ts';
import {
  countCredentials,
  summarizeCredentials,
  type CredentialSummary,
} from '../credentials/credentials.repository.ts';
import type { LoginSession } from './login-session.ts';
import { findAccountWithCredentials, type AccountFacts } from './sign-in.repository.ts';
import type { StepFacts } from './next-step.ts';
import type { LoginState } from './steps.ts';

/** Every sign-in call answers this shape; `state` names the step the portal shows next. */
export interface LoginAnswer {
  state: LoginState;
  session_id: string;
  email: string;
  is_user: boolean;
  is_stakeholder: boolean;
  available_credentials: CredentialSummary[];
  allow_totp_remember: boolean;
  /** Only at Done: where the portal goes next. */
  redirect_to?: string;
  /** Only in CredentialsRequired, when the account has a passkey: the portal offers passkey sign-in. */
  passkey?: true;
}

export type { AccountFacts };

/** The account behind a login session and its credentials (one query, same for unknown emails). */
export async function loadAccountFacts(ctx: Pick<Context, 'db'>, email: string): Promise<AccountFacts> {
  return findAccountWithCredentials(ctx.db, email);
}

/** `deviceRemembered`: this browser carries a remembered device of this account (see advance()). */
export function stepFacts(session: LoginSession, { account, credentials }: AccountFacts, deviceRemembered = false): StepFacts {
  return {
    account: account ? { passwordResetRequired: account.password_reset_required } : null,
    credentials: countCredentials(credentials),
    firstFactor: session.first_factor,
    secondFactorVerified: session.second_factor,
    deviceRemembered,
    createCredentialAnswered: session.create_credential_answered,
  };
}

/**
 * OTPRequired always answers neutral values: an unknown email and a real account without
 * credentials must look the same until the code is verified. Other states may show the
 * account, because reaching them already shows that it exists.
 */
export function buildAnswer(session: LoginSession, { account, credentials }: AccountFacts, redirectTo?: string): LoginAnswer {
  const neutral = session.state === 'OTPRequired' || account === null;
  return {
    state: session.state,
    session_id: session.id,
    email: session.email,
    is_user: neutral ? false : account.is_user,
    is_stakeholder: neutral ? false : account.is_stakeholder,
    available_credentials: neutral ? [] : summarizeCredentials(credentials),
    allow_totp_remember: session.state === 'MfaRequired' && session.remember_device_allowed !== false,
    ...(redirectTo ? { redirect_to: redirectTo } : {}),
    ...(!neutral && session.state === 'CredentialsRequired' && credentials.some((c) => c.type === 'webauthn') ? { passkey: true as const } : {}),
  };
}

/**
 * Where the portal goes at Done: back into the OAuth interaction that sent the person here,
 * else the sharing portal for stakeholders who are not users, else the tenant picker.
 */
export function redirectAfterDone(session: LoginSession, account: AccountRecord): string {
  const interaction = session.query.interaction;
  if (interaction) return `/auth/interaction/${encodeURIComponent(interaction)}/finish`;
  if (account.is_stakeholder && !account.is_user) return '/auth/athena';
  return '/login/select-tenant';
}
