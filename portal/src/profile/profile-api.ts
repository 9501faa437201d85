import { request } from '../api/client.ts';

/** Calls of the account-profile page (cookie session); shapes are the server's (openapi.yaml). */

export type Locale = 'sv' | 'en';

export type Setting = { key: 'locale'; value: Locale } | { key: 'name'; value: string };

export interface SessionListing {
  id: string;
  current: boolean;
  signed_in_at: string;
  user_agent: string | null;
  methods: string[];
}

export interface ApplicationListing {
  id: string;
  client_id: string;
  client_name: string;
  session_id: string | null;
  current: boolean;
  expires_at: string;
}

export interface SessionsResponse {
  sessions: SessionListing[];
  applications: ApplicationListing[];
}

export interface ActivityEvent {
  id: string;
  action: string;
  at: string;
  by: 'you' | 'support' | 'system';
  details: {
    method?: string;
    type?: string;
    provider?: string;
    key?: string;
    value?: string;
    count?: number;
    client?: string;
    tenant?: string;
    reason?: string;
    as?: string;
  };
}

export function saveSetting(setting: Setting): Promise<Setting> {
  return request('POST', '/api/accounts/settings', { body: setting });
}

export function accountSessions(): Promise<SessionsResponse> {
  return request('GET', '/api/accounts/sessions');
}

export async function signOutSession(id: string): Promise<void> {
  await request('DELETE', `/api/accounts/sessions/${encodeURIComponent(id)}`);
}

export function signOutOtherSessions(): Promise<{ sessions: number; applications: number }> {
  return request('POST', '/api/accounts/sessions/sign-out-others', { body: {} });
}

export async function signOutApplication(id: string): Promise<void> {
  await request('DELETE', `/api/accounts/applications/${encodeURIComponent(id)}`);
}

export function accountActivity(): Promise<{ events: ActivityEvent[] }> {
  return request('GET', '/api/accounts/activity');
}

export function changePassword(payload: { current_password: string; new_password: string; sign_out_others: boolean }): Promise<{ signed_out: number }> {
  return request('POST', '/api/accounts/password', { body: payload });
}

/** The password switch turned on: a set-password link is mailed; the answer says nothing more. */
export async function requestPasswordSetupLink(): Promise<void> {
  await request('POST', '/api/accounts/password/setup-link', { body: {} });
}
