import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as api from '../../portal/src/api/client.ts';

interface Call {
  url: string;
  init: RequestInit;
}

let calls: Call[] = [];

function answer(status: number, body?: unknown, contentType = 'application/json') {
  const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      return new Response(status === 204 ? null : text, { status, statusText: `S${status}`, headers: { 'Content-Type': contentType } });
    }),
  );
}

const headers = (call: Call | undefined) => (call?.init.headers ?? {}) as Record<string, string>;
const body = (call: Call | undefined) => JSON.parse(String(call?.init.body)) as unknown;

beforeEach(() => {
  calls = [];
  api.setLanguageSource(() => 'sv');
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('request', () => {
  it('sends cookies and JSON, and parses a JSON answer', async () => {
    answer(200, { state: 'OTPRequired' });
    await expect(api.request('POST', '/x', { body: { a: 1 } })).resolves.toEqual({ state: 'OTPRequired' });
    expect(calls[0]?.init.credentials).toBe('same-origin');
    expect(headers(calls[0])['Content-Type']).toBe('application/json');
    expect(headers(calls[0])['Accept-Language']).toBe('sv');
    expect(body(calls[0])).toEqual({ a: 1 });
  });

  it.each([
    ['204', 204, undefined, 'application/json'],
    ['an empty body', 200, '', 'application/json'],
    ['a non-JSON body', 200, '<html>ok</html>', 'text/html'],
  ])('answers undefined for %s', async (_name, status, text, type) => {
    answer(status, text, type);
    await expect(api.request('GET', '/x')).resolves.toBeUndefined();
  });

  it('throws ApiError with status, statusText and the detail list', async () => {
    answer(401, { detail: [{ type: 'invalid_credentials', msg: 'Invalid credentials' }] });
    const failure = await api.request('POST', '/x').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(api.ApiError);
    expect(failure).toMatchObject({ status: 401, statusText: 'S401', detail: [{ type: 'invalid_credentials', msg: 'Invalid credentials' }] });
    expect((failure as api.ApiError).type).toBe('invalid_credentials');
  });

  it('has an empty detail list when the error body is not JSON', async () => {
    answer(502, 'Bad gateway', 'text/plain');
    await expect(api.request('GET', '/x')).rejects.toMatchObject({ status: 502, detail: [] });
  });

  it('turns a network failure into status 0 / network_error', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))));
    await expect(api.request('GET', '/x')).rejects.toMatchObject({ status: 0, detail: [{ type: 'network_error' }] });
  });
});

describe('sign-in calls (spec section 7)', () => {
  const session = { state: 'Done', session_id: 's' };

  it.each([
    ['loginStart', () => api.loginStart('a@b.se', '?client_id=c&lang=sv'), 'POST', '/auth/login/start?client_id=c&lang=sv', { email: 'a@b.se' }],
    ['loginStart without query', () => api.loginStart('a@b.se', ''), 'POST', '/auth/login/start', { email: 'a@b.se' }],
    ['loginPing', () => api.loginPing('s 1'), 'GET', '/auth/login/ping?session_id=s+1', undefined],
    ['loginPing without session', () => api.loginPing(), 'GET', '/auth/login/ping', undefined],
    [
      "loginPing with the page's request",
      () => api.loginPing(null, new URLSearchParams('client_id=app&interaction=abc&lang=sv')),
      'GET',
      '/auth/login/ping?interaction=abc',
      undefined,
    ],
    ['loginPing with a return_to', () => api.loginPing(null, new URLSearchParams('return_to=/admin')), 'GET', '/auth/login/ping?return_to=%2Fadmin', undefined],
    [
      'verifyPassword',
      () => api.verifyPassword({ session_id: 's', email: 'a@b.se', password: 'p', remember: true }),
      'POST',
      '/auth/login/verify-password',
      { session_id: 's', email: 'a@b.se', password: 'p', remember: true },
    ],
    ['verifyOtp', () => api.verifyOtp({ session_id: 's', email: 'e', otp: '123456' }), 'POST', '/auth/login/verify-otp', { session_id: 's', email: 'e', otp: '123456' }],
    ['resendOtp', () => api.resendOtp({ session_id: 's' }), 'POST', '/auth/login/resend-otp', { session_id: 's' }],
    ['verifyMfa', () => api.verifyMfa({ session_id: 's', totp_code: '1', remember: false }), 'POST', '/auth/login/verify-mfa', { session_id: 's', totp_code: '1', remember: false }],
    ['mergeMfa', () => api.mergeMfa({ session_id: 's', totp_code: '1' }), 'POST', '/auth/login/merge-mfa', { session_id: 's', totp_code: '1' }],
    ['createPassword', () => api.createPassword({ session_id: 's', password: 'p' }), 'POST', '/auth/login/create-password', { session_id: 's', password: 'p' }],
    ['skipCreatePassword', () => api.skipCreatePassword({ session_id: 's' }), 'POST', '/auth/login/skip-create-password', { session_id: 's' }],
    ['checkResetToken', () => api.checkResetToken({ token: 't' }), 'POST', '/auth/reset/check-token', { token: 't' }],
    ['confirmReset', () => api.confirmReset({ token: 't', password: 'p' }), 'POST', '/auth/reset/confirm', { token: 't', password: 'p' }],
    ['availableTenants', () => api.availableTenants(), 'GET', '/auth/available-tenants', undefined],
    ['userinfo', () => api.userinfo(), 'GET', '/oauth2/userinfo', undefined],
  ] as const)('%s → %s %s', async (_name, call, method, url, payload) => {
    answer(200, session);
    await call();
    expect(calls[0]?.url).toBe(url);
    expect(calls[0]?.init.method).toBe(method);
    if (payload === undefined) expect(calls[0]?.init.body).toBeUndefined();
    else expect(body(calls[0])).toEqual(payload);
  });

  it('resetRequest sends the UI language as Accept-Language', async () => {
    answer(200, {});
    await api.resetRequest({ email: 'a@b.se', type: 'athena' });
    expect(calls[0]?.url).toBe('/auth/reset/request');
    expect(headers(calls[0])['Accept-Language']).toBe('sv');
    expect(body(calls[0])).toEqual({ email: 'a@b.se', type: 'athena' });
  });

  it('confirmReset answers the account type, or an empty object', async () => {
    answer(200, { type: 'athena' });
    await expect(api.confirmReset({ token: 't', password: 'p' })).resolves.toEqual({ type: 'athena' });
    answer(204);
    await expect(api.confirmReset({ token: 't', password: 'p' })).resolves.toEqual({});
  });

  it('checkResetToken rejects with 406 for a bad token', async () => {
    answer(406, { detail: [{ type: 'invalid_token', msg: 'x' }] });
    await expect(api.checkResetToken({ token: 't' })).rejects.toMatchObject({ status: 406 });
  });
});
