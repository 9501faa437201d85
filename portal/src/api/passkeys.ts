import {
  browserSupportsWebAuthn,
  startAuthentication,
  startRegistration,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/browser';
import { request } from './client.ts';
import type { LoginSessionResponse } from './types.ts';

/** A passkey as the profile lists it. */
export interface Passkey {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

export interface PasskeysResponse {
  passkeys: Passkey[];
}

/** The CredentialsRequired answer says `passkey: true` when the account has one. */
export function offersPasskey(session: LoginSessionResponse | null): boolean {
  return (session as (LoginSessionResponse & { passkey?: unknown }) | null)?.passkey === true;
}

/** Whether this browser can run a WebAuthn ceremony at all (secure context, API present). */
export function passkeysSupported(): boolean {
  return typeof window !== 'undefined' && window.isSecureContext && browserSupportsWebAuthn();
}

// ---- sign-in (CredentialsRequired) ----

/**
 * Passkey sign-in: the server's challenge for this login session, the browser's passkey prompt,
 * then the signed answer. Answers the next login state (normally Done).
 */
export async function signInWithPasskey(sessionId: string): Promise<LoginSessionResponse> {
  const optionsJSON = await request<PublicKeyCredentialRequestOptionsJSON>('POST', '/auth/login/passkey/options', {
    body: { session_id: sessionId },
  });
  const response: AuthenticationResponseJSON = await startAuthentication({ optionsJSON });
  return request('POST', '/auth/login/passkey/verify', { body: { session_id: sessionId, response } });
}

// ---- profile (cookie session) ----

export function listPasskeys(): Promise<PasskeysResponse> {
  return request('GET', '/auth/passkeys');
}

/** Registration: the server's options, the browser's "create a passkey" prompt, then storing it. */
export async function addPasskey(name: string): Promise<{ id: string; name: string }> {
  const optionsJSON = await request<PublicKeyCredentialCreationOptionsJSON>('POST', '/auth/passkeys/options', { body: {} });
  const response: RegistrationResponseJSON = await startRegistration({ optionsJSON });
  return request('POST', '/auth/passkeys/verify', { body: { response, name } });
}

/** 403 reauthentication_required: sign in again first. */
export async function removePasskey(id: string): Promise<void> {
  await request('DELETE', `/auth/passkeys/${encodeURIComponent(id)}`);
}

// ---- what went wrong ----

/**
 * What a failed passkey ceremony means for the person. From the browser: the prompt was closed or
 * timed out (`cancelled`: browsers do not tell the two apart), the authenticator already holds a
 * passkey for this account (`already_registered`), or passkeys are not allowed here. From the
 * server: the passkey is not one of this account's, it did not verify, the request expired, the
 * account has as many passkeys as it may (`limit`), or no answer came. Null: an error of the sign-in or profile flow itself (session gone, locked...).
 */
export type PasskeyProblem = 'cancelled' | 'not_allowed' | 'already_registered' | 'unknown' | 'invalid' | 'expired' | 'limit' | 'network';

export const PASSKEY_PROBLEM_KEYS: Record<PasskeyProblem, string> = {
  cancelled: 'passkey.errors.cancelled',
  not_allowed: 'passkey.errors.not_allowed',
  already_registered: 'passkey.errors.already_registered',
  unknown: 'passkey.errors.unknown',
  invalid: 'passkey.errors.invalid',
  expired: 'passkey.errors.expired',
  limit: 'passkey.errors.limit',
  network: 'errors.network_error',
};

const SERVER_PROBLEMS: Record<string, PasskeyProblem> = {
  'passkey/unknown': 'unknown',
  'passkey/none': 'unknown',
  'passkey/invalid': 'invalid',
  'passkey/registration-invalid': 'invalid',
  'passkey/challenge-expired': 'expired',
  'passkey/already-registered': 'already_registered',
  'passkey/limit-reached': 'limit',
};

interface ApiErrorLike {
  status: number;
  detail: { type: string }[];
}

function isApiErrorLike(error: unknown): error is ApiErrorLike {
  return typeof error === 'object' && error !== null && typeof (error as ApiErrorLike).status === 'number' && Array.isArray((error as ApiErrorLike).detail);
}

export function passkeyProblem(error: unknown): PasskeyProblem | null {
  if (isApiErrorLike(error)) {
    if (error.status === 0 || error.status === 503) return 'network';
    return SERVER_PROBLEMS[error.detail[0]?.type ?? ''] ?? null;
  }
  const name = error instanceof Error ? error.name : '';
  if (name === 'NotAllowedError' || name === 'AbortError') return 'cancelled';
  if (name === 'InvalidStateError') return 'already_registered';
  return 'not_allowed';
}
