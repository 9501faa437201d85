/**
 * State of the login page. Pure: no I/O, no timers. The server decides the step: every answer
 * names the next state and the reducer follows it; an error never moves the flow to another step
 * (only `restarted`, dispatched RESTART_DELAY_MS after a restart-kind error, returns to Start).
 *
 * ```mermaid
 * stateDiagram-v2
 *   [*] --> Start
 *   Start --> PasswordResetRequired: answered
 *   Start --> OTPRequired: answered
 *   Start --> CredentialsRequired: answered
 *   OTPRequired --> AskedCreateCredential: answered
 *   CredentialsRequired --> MfaRequired: answered
 *   CredentialsRequired --> TOTPResetRequired: answered
 *   OTPRequired --> MfaRequired: answered
 *   MfaRequired --> Done: answered
 *   TOTPResetRequired --> Done: answered
 *   AskedCreateCredential --> Done: answered
 *   CredentialsRequired --> Done: answered
 *   OTPRequired --> Done: answered
 *   note right of Start: any step --> Start on cancelled (email and error cleared)<br/>or restarted (after a restart-kind error)
 * ```
 */
import { LOGIN_STATES, type LoginPingResponse, type LoginSessionResponse, type LoginStateName } from '../api/types.ts';
import { DEFAULT_LOGIN_ERROR, loginErrorFrom, type LoginError } from './error-messages.ts';

export interface LoginState {
  step: LoginStateName;
  email: string;
  session: LoginSessionResponse | null;
  /** True once the page's login ping has ended (successfully or not). */
  pinged: boolean;
  pending: boolean;
  error: LoginError | null;
  /** i18n key of an informational message (a new code was sent, a reset link was sent). */
  notice: string | null;
}

export type LoginAction =
  | { type: 'pinged'; answer?: LoginPingResponse | null }
  | { type: 'emailChanged'; email: string }
  | { type: 'requested' }
  | { type: 'answered'; session: LoginSessionResponse }
  | { type: 'failed'; error: unknown }
  | { type: 'noticed'; notice: string; session?: LoginSessionResponse | null }
  | { type: 'cancelled' }
  | { type: 'restarted' };

export const initialLoginState: LoginState = {
  step: 'Start',
  email: '',
  session: null,
  pinged: false,
  pending: false,
  error: null,
  notice: null,
};

export function createInitialLoginState(email = ''): LoginState {
  return { ...initialLoginState, email };
}

export function isLoginStateName(value: unknown): value is LoginStateName {
  return typeof value === 'string' && (LOGIN_STATES as readonly string[]).includes(value);
}

function isSessionAnswer(value: unknown): value is LoginSessionResponse {
  const answer = value as Partial<LoginSessionResponse> | null | undefined;
  return isLoginStateName(answer?.state) && typeof answer?.session_id === 'string';
}

function follow(state: LoginState, session: LoginSessionResponse): LoginState {
  return {
    ...state,
    step: session.state,
    email: session.email ?? state.email,
    session: { ...session, available_credentials: session.available_credentials ?? [] },
    pending: false,
    error: null,
    notice: null,
  };
}

export function loginReducer(state: LoginState, action: LoginAction): LoginState {
  switch (action.type) {
    case 'pinged': {
      const answer = action.answer;
      const pinged = { ...state, pinged: true, email: state.email || (answer?.email ?? '') };
      // A live session in a later step (e.g. back from Google with session_id) resumes there.
      if (isSessionAnswer(answer) && answer.state !== 'Start') return follow(pinged, answer);
      return pinged;
    }
    case 'emailChanged':
      return { ...state, email: action.email, error: null };
    case 'requested':
      return { ...state, pending: true, error: null, notice: null };
    case 'answered':
      if (!isSessionAnswer(action.session)) return { ...state, pending: false, error: DEFAULT_LOGIN_ERROR };
      return follow(state, action.session);
    case 'failed':
      return { ...state, pending: false, error: loginErrorFrom(action.error), notice: null };
    case 'noticed': {
      const base = isSessionAnswer(action.session) ? follow(state, action.session) : state;
      return { ...base, pending: false, error: null, notice: action.notice };
    }
    case 'cancelled':
      return { ...initialLoginState, pinged: state.pinged };
    case 'restarted':
      return { ...initialLoginState, pinged: state.pinged, email: state.email };
  }
}
