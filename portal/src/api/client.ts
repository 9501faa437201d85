import type {
  ActivatedCredential,
  AvailableTenantsResponse,
  ConfirmResetResponse,
  ErrorDetail,
  LoginPingResponse,
  LoginSessionResponse,
  TfaDevicesResponse,
  TfaSetupResponse,
  UserInfo,
} from './types.ts';

export type * from './types.ts';

/** A non-success answer, or status 0 with type `network_error` when no answer came at all. */
export class ApiError extends Error {
  readonly status: number;
  readonly statusText: string;
  readonly detail: ErrorDetail[];
  /** The answer's Retry-After in seconds (e.g. how long an `account_locked` lasts), when it sent one. */
  readonly retryAfterSeconds?: number;

  constructor(status: number, statusText: string, detail: ErrorDetail[], retryAfterSeconds?: number) {
    super(detail[0]?.msg || `${status} ${statusText}`);
    this.name = 'ApiError';
    this.status = status;
    this.statusText = statusText;
    this.detail = detail;
    if (retryAfterSeconds !== undefined) this.retryAfterSeconds = retryAfterSeconds;
  }

  /** The first detail type: what the portal translates. */
  get type(): string | undefined {
    return this.detail[0]?.type;
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

let languageSource: () => string | undefined = () => undefined;

/** main.tsx wires this to i18next so every call carries the UI language as Accept-Language. */
export function setLanguageSource(source: () => string | undefined): void {
  languageSource = source;
}

interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Retry-After as delay-seconds; the server never sends the HTTP-date form, so that is ignored. */
function retryAfterSeconds(response: Response): number | undefined {
  const value = response.headers.get('Retry-After')?.trim();
  return value && /^\d+$/.test(value) ? Number(value) : undefined;
}

function toDetail(body: unknown): ErrorDetail[] {
  if (typeof body !== 'object' || body === null || !('detail' in body)) return [];
  const detail = (body as { detail: unknown }).detail;
  if (typeof detail === 'string') return [{ type: 'error', msg: detail }];
  if (!Array.isArray(detail)) return [];
  return detail
    .filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null)
    .map((item) => ({ type: String(item.type ?? ''), msg: String(item.msg ?? '') }));
}

function networkError(cause: unknown): ApiError {
  const msg = cause instanceof Error ? cause.message : String(cause);
  return new ApiError(0, 'Network Error', [{ type: 'network_error', msg }]);
}

/**
 * How long a call may wait for its answer. One that never comes (a dropped connection, a proxy
 * holding it) would otherwise leave its button busy for good; past this it is a network error.
 */
const REQUEST_TIMEOUT_MS = 20_000;

/**
 * The one fetch wrapper: same-origin cookies, JSON both ways. Success gives the parsed body, or
 * undefined for 204, an empty or a non-JSON body. Failure throws ApiError; no answer within
 * REQUEST_TIMEOUT_MS is status 0 `network_error`, as is no answer at all.
 */
export async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
  const language = languageSource();
  if (language) headers['Accept-Language'] = language;
  Object.assign(headers, options.headers);
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (cause) {
    throw networkError(cause);
  }
  let text: string;
  try {
    text = response.status === 204 ? '' : await response.text();
  } catch (cause) {
    // The body stopped coming (cut off, or past the timeout): nothing of the answer can be trusted.
    throw networkError(cause);
  }
  const body = parseJson(text);
  if (!response.ok) throw new ApiError(response.status, response.statusText, toDetail(body), retryAfterSeconds(response));
  return body as T;
}

/** `?a=b` from a query string or params; empty when there is nothing to pass. */
function queryString(query: string | URLSearchParams | undefined): string {
  if (query === undefined) return '';
  const text = typeof query === 'string' ? query.replace(/^\?/, '') : query.toString();
  return text === '' ? '' : `?${text}`;
}

// ---- sign-in (spec section 7) ----

/** The page's own query string is passed through: the server reads client_id, type, ... from it. */
export function loginStart(email: string, query?: string | URLSearchParams): Promise<LoginSessionResponse> {
  return request('POST', `/auth/login/start${queryString(query)}`, { body: { email } });
}

/**
 * `page`: the login page's own query. Its `interaction` (the OAuth request) or `return_to` (the
 * Nyckel page) names the request: without a session_id the server resumes this browser's sign-in
 * for that request only, never another tab's.
 */
export async function loginPing(sessionId?: string | null, page?: URLSearchParams): Promise<LoginPingResponse | undefined> {
  const query = new URLSearchParams();
  if (sessionId) query.set('session_id', sessionId);
  for (const name of ['interaction', 'return_to']) {
    const value = page?.get(name);
    if (value) query.set(name, value);
  }
  const answer = await request<(LoginPingResponse & { session?: LoginSessionResponse | null }) | undefined>('GET', `/auth/login/ping${queryString(query)}`);
  // The server answers { session, email } (spec: "session, email"); the page reads the session's
  // fields flat, so a live session (e.g. back from Google with session_id) resumes its step. Its
  // address is the sign-in's: the top-level one (whoever is signed in already) only stands in
  // when there is no sign-in under way.
  if (!answer || !('session' in answer)) return answer;
  const { session, ...rest } = answer;
  return { ...rest, ...(session ?? {}), email: session?.email ?? rest.email ?? null };
}

export function verifyPassword(payload: {
  session_id: string;
  email: string;
  password: string;
  remember?: boolean;
}): Promise<LoginSessionResponse> {
  return request('POST', '/auth/login/verify-password', { body: payload });
}

export function verifyOtp(payload: { session_id: string; email: string; otp: string }): Promise<LoginSessionResponse> {
  return request('POST', '/auth/login/verify-otp', { body: payload });
}

/** May answer with the session (then the portal follows its state) or with nothing. */
export function resendOtp(payload: { session_id: string }): Promise<LoginSessionResponse | undefined> {
  return request('POST', '/auth/login/resend-otp', { body: payload });
}

export function verifyMfa(payload: {
  session_id: string;
  totp_code: string;
  remember: boolean;
}): Promise<LoginSessionResponse> {
  return request('POST', '/auth/login/verify-mfa', { body: payload });
}

export function mergeMfa(payload: { session_id: string; totp_code: string }): Promise<LoginSessionResponse> {
  return request('POST', '/auth/login/merge-mfa', { body: payload });
}

export function createPassword(payload: { session_id: string; password: string }): Promise<LoginSessionResponse> {
  return request('POST', '/auth/login/create-password', { body: payload });
}

export function skipCreatePassword(payload: { session_id: string }): Promise<LoginSessionResponse> {
  return request('POST', '/auth/login/skip-create-password', { body: payload });
}

/** Ends the sign-in in progress on the server (Cancel): a reload then finds nothing to resume. */
export async function loginCancel(payload: { session_id: string }): Promise<void> {
  await request('POST', '/auth/login/cancel', { body: payload });
}

// ---- password reset ----

/** 200 means sent; the answer never says whether the email has an account. */
export async function resetRequest(payload: { email: string; type?: string | null }): Promise<void> {
  const language = languageSource() ?? 'en';
  await request('POST', '/auth/reset/request', { body: payload, headers: { 'Accept-Language': language } });
}

/** Throws ApiError 406 when the token is invalid or expired. */
export async function checkResetToken(payload: { token: string }): Promise<void> {
  await request('POST', '/auth/reset/check-token', { body: payload });
}

/** Answers the account `type` (e.g. a sharing-portal account); 406 means the reset failed. */
export async function confirmReset(payload: { token: string; password: string }): Promise<ConfirmResetResponse> {
  return (await request<ConfirmResetResponse | undefined>('POST', '/auth/reset/confirm', { body: payload })) ?? {};
}

/**
 * Confirms an operator's change of the account's email address from the link mailed to the new
 * one; answers the new address. 406 means the link is invalid, used or expired; 409 that another
 * account took the address meanwhile.
 */
export function confirmEmailChange(payload: { token: string }): Promise<{ status: 'changed'; email: string }> {
  return request('POST', '/auth/email-change/confirm', { body: payload });
}

// ---- after sign-in ----

export function availableTenants(): Promise<AvailableTenantsResponse> {
  return request('GET', '/auth/available-tenants');
}

export function userinfo(): Promise<UserInfo> {
  return request('GET', '/oauth2/userinfo');
}

// ---- profile (cookie session) ----

/**
 * Signs this browser out of Nyckel (POST /api/accounts/sessions/sign-out): its Nyckel session,
 * its OP sessions and the applications signed in through them. Then go to /login.
 */
export async function signOutThisBrowser(): Promise<void> {
  await request('POST', '/api/accounts/sessions/sign-out', { body: {} });
}

/** Removes one of the person's credentials. 403 reauthentication_required: sign in again first. */
export async function deleteCredential(id: string): Promise<void> {
  await request('DELETE', `/oauth2/userinfo/credentials/${encodeURIComponent(id)}`);
}

/** A pending authenticator secret for this session; `/auth/qrcode` is the same secret as a QR image. */
export function tfaSetup(): Promise<TfaSetupResponse> {
  return request('GET', '/auth/tfa/setup');
}

/** Activates the pending secret with a code from the app; replaces any earlier authenticator. */
export function tfaActivate(payload: { totp_code: string }): Promise<ActivatedCredential> {
  return request('POST', '/auth/tfa/activate', { body: payload });
}

export function tfaDevices(): Promise<TfaDevicesResponse> {
  return request('GET', '/auth/tfa/devices');
}

/** Forgets a remembered device: its next sign-in asks for the authenticator code again. */
export async function revokeDevice(id: string): Promise<void> {
  await request('DELETE', `/auth/tfa/devices/${encodeURIComponent(id)}`);
}
