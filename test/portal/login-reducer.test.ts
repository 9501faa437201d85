import { describe, expect, it } from 'vitest';
import type { LoginSessionResponse, LoginStateName } from '../../portal/src/api/types.ts';
import {
  createInitialLoginState,
  initialLoginState,
  loginReducer,
  type LoginAction,
  type LoginState,
} from '../../portal/src/login/login-reducer.ts';

function session(state: LoginStateName, extra: Partial<LoginSessionResponse> = {}): LoginSessionResponse {
  return {
    state,
    session_id: 'sess-1',
    is_stakeholder: false,
    is_user: true,
    available_credentials: [],
    allow_totp_remember: false,
    ...extra,
  };
}

const apiError = (type: string, status = 400) => ({ status, statusText: 'x', detail: [{ type, msg: 'm' }] });

const at = (step: LoginStateName, extra: Partial<LoginState> = {}): LoginState => ({
  ...initialLoginState,
  pinged: true,
  step,
  email: 'ann@example.com',
  session: session(step, { email: 'ann@example.com' }),
  ...extra,
});

interface Case {
  name: string;
  from: LoginState;
  action: LoginAction;
  expect: Partial<LoginState>;
}

const cases: Case[] = [
  // The server's answer names the next step, whatever step we are on.
  ...(['PasswordResetRequired', 'OTPRequired', 'CredentialsRequired'] as const).map((next) => ({
    name: `Start answered ${next} → ${next}`,
    from: at('Start', { session: null, pending: true }),
    action: { type: 'answered', session: session(next, { email: 'ann@example.com' }) } as LoginAction,
    expect: { step: next, pending: false, error: null, email: 'ann@example.com' },
  })),
  {
    name: 'password accepted, MFA next → MfaRequired',
    from: at('CredentialsRequired', { pending: true }),
    action: { type: 'answered', session: session('MfaRequired', { allow_totp_remember: true }) },
    expect: { step: 'MfaRequired', pending: false },
  },
  {
    name: 'answer without an email keeps the known one',
    from: at('OTPRequired'),
    action: { type: 'answered', session: session('AskedCreateCredential') },
    expect: { step: 'AskedCreateCredential', email: 'ann@example.com' },
  },
  {
    name: 'Done is followed like any state',
    from: at('MfaRequired'),
    action: { type: 'answered', session: session('Done') },
    expect: { step: 'Done' },
  },
  {
    name: 'an answer with an unknown state is a failure, the step stays',
    from: at('CredentialsRequired', { pending: true }),
    action: { type: 'answered', session: { ...session('Done'), state: 'Bogus' as LoginStateName } },
    expect: { step: 'CredentialsRequired', pending: false, error: { key: 'errors.failed_to_authenticate', kind: 'soft' } },
  },
  // Errors never move the flow: the portal does not infer the step from an error.
  {
    name: 'wrong password: soft error, same step',
    from: at('CredentialsRequired', { pending: true }),
    action: { type: 'failed', error: apiError('invalid_credentials', 401) },
    expect: { step: 'CredentialsRequired', pending: false, error: { key: 'errors.invalid_credentials', kind: 'soft' } },
  },
  {
    name: 'expired one-time code: hard error, same step',
    from: at('OTPRequired', { pending: true }),
    action: { type: 'failed', error: apiError('otp/session/invalid') },
    expect: { step: 'OTPRequired', error: { key: 'errors.otp_session_invalid', kind: 'hard' } },
  },
  // No new code in this session (the server refuses a resend): restart, not hard.
  {
    name: 'email codes used up: restart error, same step until restarted',
    from: at('OTPRequired', { pending: true }),
    action: { type: 'failed', error: apiError('otp/retries-exceeded', 429) },
    expect: { step: 'OTPRequired', pending: false, error: { key: 'errors.otp_retries_start_again', kind: 'restart' } },
  },
  {
    name: 'authenticator codes used up: restart error, same step until restarted',
    from: at('MfaRequired', { pending: true }),
    action: { type: 'failed', error: apiError('mfa/retries-exceeded', 429) },
    expect: { step: 'MfaRequired', pending: false, error: { key: 'errors.mfa_retries_exceeded', kind: 'restart' } },
  },
  {
    name: 'missing login session: restart error, same step until restarted',
    from: at('MfaRequired', { pending: true }),
    action: { type: 'failed', error: apiError('login_session_missing', 401) },
    expect: { step: 'MfaRequired', error: { key: 'errors.login_session_expired', kind: 'restart' } },
  },
  {
    name: 'restarted → Start, session and error dropped, email kept',
    from: at('MfaRequired', { error: { key: 'errors.login_session_expired', kind: 'restart' } }),
    action: { type: 'restarted' },
    expect: { step: 'Start', session: null, error: null, email: 'ann@example.com', pinged: true },
  },
  {
    name: 'cancelled → Start with email and error cleared',
    from: at('OTPRequired', { error: { key: 'errors.invalid_code', kind: 'soft' }, notice: 'login.otp.resent' }),
    action: { type: 'cancelled' },
    expect: { step: 'Start', email: '', error: null, notice: null, session: null, pinged: true },
  },
  {
    name: 'requested: pending, previous error and notice cleared',
    from: at('OTPRequired', { error: { key: 'errors.invalid_code', kind: 'soft' }, notice: 'n' }),
    action: { type: 'requested' },
    expect: { pending: true, error: null, notice: null },
  },
  {
    name: 'noticed without a session: notice shown, hard error cleared, step kept',
    from: at('OTPRequired', { pending: true, error: { key: 'errors.otp_session_invalid', kind: 'hard' } }),
    action: { type: 'noticed', notice: 'login.otp.resent' },
    expect: { step: 'OTPRequired', pending: false, error: null, notice: 'login.otp.resent' },
  },
  {
    name: 'noticed with a session: its state is followed and the notice kept',
    from: at('OTPRequired', { pending: true }),
    action: { type: 'noticed', notice: 'login.otp.resent', session: session('OTPRequired', { session_id: 'sess-2' }) },
    expect: { step: 'OTPRequired', notice: 'login.otp.resent' },
  },
  {
    name: 'typing the email clears the error',
    from: at('Start', { error: { key: 'errors.network_error', kind: 'soft' } }),
    action: { type: 'emailChanged', email: 'bo@example.com' },
    expect: { email: 'bo@example.com', error: null },
  },
  {
    name: 'ping with an email only: prefilled, still Start',
    from: initialLoginState,
    action: { type: 'pinged', answer: { email: 'ann@example.com' } },
    expect: { pinged: true, step: 'Start', email: 'ann@example.com' },
  },
  {
    name: 'ping does not overwrite an email from the query',
    from: createInitialLoginState('query@example.com'),
    action: { type: 'pinged', answer: { email: 'ann@example.com' } },
    expect: { email: 'query@example.com' },
  },
  {
    name: 'ping of a live session past Start resumes it (back from an upstream sign-in)',
    from: initialLoginState,
    action: { type: 'pinged', answer: session('MfaRequired', { email: 'ann@example.com' }) },
    expect: { pinged: true, step: 'MfaRequired', email: 'ann@example.com' },
  },
  {
    name: 'failed ping opens the page at Start',
    from: initialLoginState,
    action: { type: 'pinged' },
    expect: { pinged: true, step: 'Start', email: '' },
  },
];

describe('loginReducer', () => {
  it.each(cases)('$name', ({ from, action, expect: expected }) => {
    const next = loginReducer(from, action);
    expect(next).toMatchObject(expected);
  });

  it('keeps the session of the last answer for the next call', () => {
    const next = loginReducer(at('Start'), { type: 'answered', session: session('OTPRequired', { session_id: 'new' }) });
    expect(next.session?.session_id).toBe('new');
  });

  it('fills in a missing credential list', () => {
    const answer = { ...session('CredentialsRequired'), available_credentials: undefined } as unknown as LoginSessionResponse;
    expect(loginReducer(at('Start'), { type: 'answered', session: answer }).session?.available_credentials).toEqual([]);
  });

  it('does not mutate the previous state', () => {
    const from = at('CredentialsRequired');
    const copy = structuredClone(from);
    loginReducer(from, { type: 'failed', error: apiError('invalid_credentials') });
    expect(from).toEqual(copy);
  });
});
