import { describe, expect, it } from 'vitest';
import {
  describeLoginError,
  LOGIN_ERROR_TYPES,
  loginErrorFrom,
  loginErrorFromType,
  resetRequestErrorKey,
} from '../../portal/src/login/error-messages.ts';
import en from '../../portal/src/i18n/en.json' with { type: 'json' };
import { translate } from './translate.ts';

const error = (type: string, status = 400, msg = '') => ({ status, detail: [{ type, msg }] });

describe('login error messages (spec section 8)', () => {
  it.each([
    ['invalid_credentials', 'Invalid credentials (passwords are case-sensitive)', 'soft'],
    ['login_session_expired', 'Login session is expired', 'restart'],
    ['login_session_missing', 'Login session is expired', 'restart'],
    ['invalid_login_session_state', 'Invalid login session state', 'restart'],
    ['account_locked', 'Account temporarily locked after too many failed attempts', 'soft'],
    ['otp/invalid', 'Invalid code. Please try again.', 'soft'],
    ['otp/session/invalid', 'One-time password expired or invalid', 'hard'],
    ['otp/retries-exceeded', 'Too many invalid retries, use the link again', 'hard'],
    ['mfa/invalid', 'Invalid code. Please try again.', 'soft'],
    ['too_many_requests', 'Too many attempts. Please wait a moment and try again.', 'soft'],
    ['something_new', 'Failed to authenticate', 'soft'],
  ])('%s → "%s" (%s)', (type, text, kind) => {
    const result = loginErrorFrom(error(type));
    expect(describeLoginError(result, (key) => translate(en, key))).toBe(text);
    expect(result.kind).toBe(kind);
  });

  it.each([
    ['no answer at all', { status: 0, detail: [{ type: 'network_error', msg: 'Failed to fetch' }] }],
    ['503', { status: 503, detail: [{ type: 'service_unavailable', msg: 'x' }] }],
    ['503 without a body', { status: 503, detail: [] }],
  ])('network error: %s', (_name, failure) => {
    expect(loginErrorFrom(failure)).toEqual({ key: 'errors.network_error', kind: 'soft' });
  });

  it.each([
    ['a non-API error', new Error('boom')],
    ['undefined', undefined],
    ['an answer without detail', { status: 500, detail: [] }],
  ])('default message for %s', (_name, failure) => {
    expect(loginErrorFrom(failure).key).toBe('errors.failed_to_authenticate');
  });

  it('uses only the first detail type', () => {
    const failure = { status: 400, detail: [{ type: 'account_locked', msg: '' }, { type: 'invalid_credentials', msg: '' }] };
    expect(loginErrorFrom(failure).key).toBe('errors.account_locked');
  });

  it('shows the server text of weak_password and validation_error, translated when known', () => {
    const t = (key: string) => translate(en, key);
    const known = loginErrorFrom(error('weak_password', 400, 'Password must be at least 9 characters'));
    expect(describeLoginError(known, t)).toBe('At least 9 characters');
    const unknown = loginErrorFrom(error('validation_error', 400, 'email: Invalid email address'));
    expect(describeLoginError(unknown, t)).toBe('email: Invalid email address');
    const empty = loginErrorFrom(error('weak_password'));
    expect(describeLoginError(empty, t)).toBe(translate(en, 'errors.weak_password'));
  });

  it('maps an error type passed in the query', () => {
    expect(loginErrorFromType('login_session_missing').kind).toBe('restart');
  });

  it('every mapped key exists in the English catalogue', () => {
    for (const { key } of Object.values(LOGIN_ERROR_TYPES)) expect(translate(en, key), key).not.toBe(key);
  });

  it.each([
    [{ status: 0, detail: [] }, 'errors.network_error'],
    [{ status: 429, detail: [] }, 'errors.too_many_requests'],
    [{ status: 500, detail: [] }, 'errors.failed_to_send_reset_email'],
    [{ status: 400, detail: [{ type: 'validation_error', msg: '' }] }, 'errors.failed_to_send_reset_email'],
  ])('reset request failure %j → %s', (failure, key) => {
    expect(resetRequestErrorKey(failure)).toBe(key);
  });
});
