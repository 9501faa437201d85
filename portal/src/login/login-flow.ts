import { useCallback, useMemo, useReducer, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { loginCancel } from '../api/client.ts';
import type { LoginSessionResponse } from '../api/types.ts';
import { describeLoginError } from './error-messages.ts';
import { createInitialLoginState, loginReducer, type LoginAction, type LoginState } from './login-reducer.ts';

/** What every step component gets: the state, and the only ways to talk to the server. */
export interface LoginFlow {
  state: LoginState;
  /** The login session id: from the last answer, else from the page's query. */
  sessionId: string;
  /** The current error, translated. */
  errorText: string | null;
  dispatch: (action: LoginAction) => void;
  /** Runs a login call; its answer (the next state) or its error goes to the reducer. */
  submit: (call: (sessionId: string) => Promise<LoginSessionResponse>) => Promise<void>;
  /** Runs a call that answers with a notice (a new code, a reset link) and maybe a session. */
  notify: (call: (sessionId: string) => Promise<LoginSessionResponse | void | undefined>, notice: string) => Promise<void>;
  cancel: () => void;
}

export function useLoginFlow(query: URLSearchParams): LoginFlow {
  const { t } = useTranslation();
  const [state, dispatch] = useReducer(loginReducer, query.get('email') ?? query.get('login_hint')?.trim() ?? '', createInitialLoginState);
  const sessionId = state.session?.session_id ?? query.get('session_id') ?? '';
  const cancelling = useRef<Promise<void>>(Promise.resolve());

  const submit = useCallback(
    async (call: (sessionId: string) => Promise<LoginSessionResponse>) => {
      dispatch({ type: 'requested' });
      try {
        // A Cancel's call clears the login cookie: it must land before a new Start sets the next one.
        await cancelling.current;
        dispatch({ type: 'answered', session: await call(sessionId) });
      } catch (error) {
        dispatch({ type: 'failed', error });
      }
    },
    [sessionId],
  );

  const notify = useCallback(
    async (call: (sessionId: string) => Promise<LoginSessionResponse | void | undefined>, notice: string) => {
      dispatch({ type: 'requested' });
      try {
        const answer = await call(sessionId);
        dispatch({ type: 'noticed', notice, session: answer ?? null });
      } catch (error) {
        dispatch({ type: 'failed', error });
      }
    },
    [sessionId],
  );

  /**
   * The page returns to Start at once; the server ends the session too, so a reload (the next
   * person's, on a shared computer) does not resume it. Should that call fail, the session
   * just runs out at its TTL.
   */
  const cancel = useCallback(() => {
    if (sessionId) {
      cancelling.current = loginCancel({ session_id: sessionId }).catch((error: unknown) => console.warn('could not end the login session', error));
    }
    dispatch({ type: 'cancelled' });
  }, [sessionId]);

  const errorText = useMemo(() => (state.error ? describeLoginError(state.error, t) : null), [state.error, t]);

  return { state, sessionId, errorText, dispatch, submit, notify, cancel };
}
