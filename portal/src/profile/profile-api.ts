import type { ActivityEntry as ActivityEvent } from '../../../src/profile/activity-summary.ts';
import type { ApplicationListing, SessionListing, SessionsAnswer as SessionsResponse } from '../../../src/profile/sessions.service.ts';
import { request } from '../api/client.ts';

// The answers' shapes are the server's own types (type-only imports: nothing of the server is bundled).
export type { ActivityEvent, ApplicationListing, SessionListing, SessionsResponse };

/** Calls of the account-profile page (cookie session); shapes are the server's (openapi.yaml). */

export type Locale = 'sv' | 'en';

export type Setting = { key: 'locale'; value: Locale } | { key: 'name'; value: string };

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
