/**
 * The operator console's calls (spec section 7, `/api/*`). Every call goes through the one
 * `request` wrapper: same-origin cookies, JSON both ways, ApiError on failure. A 401 (not signed
 * in) or 403 (not an operator, or `operator/mfa-required`) is the console's to handle.
 */
import { request } from './client.ts';
import type { AvailableCredential } from './types.ts';

// ---- shapes (the server's field names) ----

export interface TenantAccess {
  id: string;
  slug: string;
  name: string;
  active: boolean;
}

export interface AdminAccount {
  id: string;
  name: string;
  email: string;
  image: string | null;
  is_user: boolean;
  is_stakeholder: boolean;
  last_login_at: string | null;
  /** The end of the sign-in lock in force (too many failed attempts); null when not locked. */
  locked_until: string | null;
  available_credentials: AvailableCredential[];
  tenant_access: TenantAccess[];
  /** An admin's change of the address waiting for the new one to confirm it; null (or absent, an older server) when none. */
  pending_email_change?: PendingEmailChange | null;
  /** How the lock in force began; null (or absent, an older server) when not locked. */
  lock?: AccountLock | null;
}

/** An admin's change of the address, waiting for the new one to confirm it (openapi.yaml, PendingEmailChange). */
export interface PendingEmailChange {
  email: string;
  /** When the link mailed to the new address stops working (ISO time). */
  expires_at: string;
}

/** The latest lock of a locked account, from its `login.locked` audit event (openapi.yaml, Account.lock). */
export interface AccountLock {
  /** When it locked (ISO time). */
  locked_at: string;
  /** Failed attempts in a row when it locked; null when not recorded. */
  consecutive_failures: number | null;
  /** The 30-day lock after 100 failures in a row, which only a password reset ends early. */
  until_password_reset: boolean;
  /** The address and User-Agent of the attempt that locked it. */
  ip: string | null;
  user_agent: string | null;
}

export interface PasswordResetLink {
  email: string;
  link: string;
}

export interface InvoiceRow {
  name: string;
  tenant_id: string;
  user_count: number;
  functions: { system_sms: boolean; system_cronofy: boolean };
  integrations: { alva: boolean; refapp: boolean; sri: boolean; sri_ref: boolean; evali: boolean };
  /** SEK: 2850 plus 275 per user beyond the first (spec section 9). */
  fee: number;
}

export interface AdminTenant {
  id: string;
  name: string;
  slug: string;
  url: string | null;
  inactive_at: string | null;
  user_count: number;
}

/** One tenant setting; `value` is JSON (an object for the SMS keys `info`, `system_sms`, `sms_sign`). */
export interface SettingEntry {
  key: string;
  value: unknown;
}

export interface TenantDetail extends AdminTenant {
  settings: SettingEntry[];
  sms_settings: SettingEntry[];
  sms_credits: number;
}

export interface TenantUser {
  id: string;
  name: string;
  email: string;
  active: boolean;
}

export interface NotificationPayload {
  message: string;
  admins_only: boolean;
  /** Tenant ids; empty means every tenant. */
  tenants: string[];
  popup: boolean;
  new_functionality: boolean;
}

export interface AccessToken {
  /** A label of the store entry (never the bearer secret itself). */
  key: string;
  /** Seconds left; negative when the entry has no expiry. */
  ttl: number;
  /** What the entry is (AccessToken, Session, PortalSession, ...), when the server says. */
  model?: string;
  client_id?: string | null;
}

export type OperatorRole = 'support' | 'admin';

/** The signed-in operator: `support` reads, sends reset mails and notifications, ends sign-in locks, signs accounts out everywhere; `admin` may change everything. */
export interface OperatorInfo {
  id: string;
  email: string;
  role: OperatorRole;
}

const segment = (value: string) => encodeURIComponent(value);

// ---- the operator ----

/** 401 without a session, 403 `forbidden` for a non-operator, 403 `operator/mfa-required` without a second factor. */
export function getOperator(): Promise<OperatorInfo> {
  return request('GET', '/api/operator');
}

// ---- accounts ----

export function listAccounts(): Promise<AdminAccount[]> {
  return request('GET', '/api/accounts/');
}

export function searchAccounts(query: string): Promise<AdminAccount[]> {
  return request('GET', `/api/accounts/search/${segment(query)}`);
}

/** Sends the reset email. The answer is neutral: it never says whether the mail went anywhere. */
export async function sendAccountPasswordReset(accountId: string): Promise<void> {
  await request('POST', `/api/accounts/${segment(accountId)}/reset-password`);
}

/**
 * Mails the new address a link that makes it the account's email once confirmed (admin, recent
 * second-factor sign-in). 409 `account/email-taken` or `account/email-unchanged`, 422 malformed.
 */
export async function requestAccountEmailChange(accountId: string, email: string): Promise<void> {
  await request('POST', `/api/accounts/${segment(accountId)}/email-change`, { body: { email } });
}

/**
 * Withdraws the account's pending email change: the link mailed to the new address stops working
 * (admin; no recent sign-in needed). Answers the address the change would have moved the account
 * to. 404 `account/no-pending-email-change` when none is waiting for confirmation.
 */
export function withdrawAccountEmailChange(accountId: string): Promise<{ status: 'withdrawn'; email: string }> {
  return request('DELETE', `/api/accounts/${segment(accountId)}/email-change`);
}

/** Ends the account's sign-in lock and starts its failed-attempt count afresh; fine when it is not locked. */
export async function unlockAccount(accountId: string): Promise<void> {
  await request('POST', `/api/accounts/${segment(accountId)}/unlock`);
}

/**
 * Ends every session, application grant (refresh tokens too) and remembered device of the account;
 * the password stays. Answers how many applications were signed out.
 */
export function signAccountOutEverywhere(accountId: string): Promise<{ status: 'signed_out'; applications: number }> {
  return request('POST', `/api/accounts/${segment(accountId)}/sign-out-everywhere`);
}

/** 409 `credential/password-required`: a user account keeps its password. 403 for the support role. */
export async function deleteAccountCredential(accountId: string, credentialId: string): Promise<void> {
  await request('DELETE', `/api/accounts/${segment(accountId)}/credentials/${segment(credentialId)}`);
}

export function listPasswordResets(): Promise<PasswordResetLink[]> {
  return request('GET', '/api/accounts/password-resets');
}

// ---- invoice ----

export function listInvoice(): Promise<InvoiceRow[]> {
  return request('GET', '/api/invoice/');
}

// ---- tenants ----

export function listTenants(): Promise<AdminTenant[]> {
  return request('GET', '/api/tenants/');
}

export function searchTenants(query: string): Promise<AdminTenant[]> {
  return request('GET', `/api/tenants/search/${segment(query)}`);
}

export function getTenant(tenantId: string): Promise<TenantDetail> {
  return request('GET', `/api/tenants/${segment(tenantId)}`);
}

/** The first TENANT_USERS_LIMIT users; with `q` (3 characters or more), those whose name or email contains it. */
export function listTenantUsers(tenantId: string, q?: string): Promise<TenantUser[]> {
  return request('GET', `/api/tenants/${segment(tenantId)}/users${q === undefined ? '' : `?q=${encodeURIComponent(q)}`}`);
}

/** 409 `tenant/slug-taken` when the slug exists. */
export function createTenant(payload: { name: string; slug: string }): Promise<{ id: string }> {
  return request('POST', '/api/tenants', { body: payload });
}

export function getTenantSettings(tenantId: string): Promise<SettingEntry[]> {
  return request('GET', `/api/tenants/${segment(tenantId)}/settings`);
}

export function setTenantSetting(tenantId: string, entry: SettingEntry): Promise<SettingEntry & { tenant_id?: string }> {
  return request('POST', `/api/tenants/${segment(tenantId)}/settings`, { body: entry });
}

export function getSmsSettings(tenantId: string): Promise<SettingEntry[]> {
  return request('GET', `/api/tenants/${segment(tenantId)}/settings/sms`);
}

export function setSmsSetting(tenantId: string, entry: SettingEntry): Promise<SettingEntry> {
  return request('POST', `/api/tenants/${segment(tenantId)}/settings/sms`, { body: entry });
}

export function getSmsCredits(tenantId: string): Promise<{ credits: number }> {
  return request('GET', `/api/tenants/${segment(tenantId)}/settings/sms/credits`);
}

/** Adds `credits` to the balance; answers the new balance. */
export function addSmsCredits(tenantId: string, credits: number): Promise<{ credits: number }> {
  return request('POST', `/api/tenants/${segment(tenantId)}/settings/sms/credits`, { body: { credits } });
}

// ---- notifications and tokens ----

export async function sendNotification(payload: NotificationPayload): Promise<void> {
  await request('POST', '/api/notification/', { body: payload });
}

export function listTokens(accountId: string): Promise<AccessToken[]> {
  return request('GET', `/api/tokens/${segment(accountId)}`);
}
