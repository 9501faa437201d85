/** Shapes of the answers the portal reads. Field names are the server's (snake_case). */

import { loginStates, type LoginState } from '../../../src/login/steps.ts';

/** The server's one list of login states (src/login/steps.ts), so the two cannot drift. */
export const LOGIN_STATES = loginStates;

export type LoginStateName = LoginState;

export type CredentialType = 'password' | 'oidc' | 'webauthn' | 'totp';

export interface AvailableCredential {
  id: string;
  type: CredentialType | (string & {});
  /** For oidc credentials: the upstream issuer host, e.g. `accounts.google.com`. */
  provider?: string | null;
}

/** Every answer of the login API names the next state; the server decides it. */
export interface LoginSessionResponse {
  state: LoginStateName;
  session_id: string;
  email?: string | null;
  is_stakeholder: boolean;
  is_user: boolean;
  available_credentials: AvailableCredential[];
  allow_totp_remember: boolean;
  /** Where to go at Done inside an OAuth interaction; preferred over the portal's own choice. */
  redirect_to?: string | null;
  /** Optional: upstream providers enabled on this server (`google`, `microsoft`). */
  enabled_providers?: string[] | null;
}

/** The ping answers with what it knows: an email, and the full session answer when one exists. */
export type LoginPingResponse = Partial<LoginSessionResponse> & { email?: string | null };

export interface ErrorDetail {
  type: string;
  msg: string;
}

export interface TenantSummary {
  id: string;
  name: string;
  slug: string;
  /** Null until an operator gives the tenant its address (the console creates tenants without one). */
  url: string | null;
}

export interface AvailableTenantsResponse {
  tenants: TenantSummary[];
  is_stakeholder: boolean;
}

export interface UserInfo {
  id?: string;
  name?: string | null;
  email: string;
  locale?: string | null;
  profile_picture?: string | null;
  available_credentials?: AvailableCredential[];
  is_user?: boolean;
  is_stakeholder?: boolean;
}

/** A pending authenticator secret, held in the session for 10 minutes until activated. */
export interface TfaSetupResponse {
  /** Base32, as typed into an authenticator app. */
  secret: string;
  otpauth_uri: string;
}

export interface ActivatedCredential {
  id: string;
  type: 'totp';
}

/** A browser whose "remember this device" cookie skips the authenticator code at sign-in. */
export interface RememberedDevice {
  id: string;
  user_agent: string | null;
  created_at: string;
  last_used_at: string | null;
  /** True for the browser making the request. */
  current: boolean;
}

export interface TfaDevicesResponse {
  devices: RememberedDevice[];
}

export interface ConfirmResetResponse {
  type?: string | null;
}
