import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useSearch } from 'wouter';
import { loginPing } from '../api/client.ts';

const LoginEmailContext = createContext<string | null>(null);

/** The email the login ping reported, inside a LoginGuard. */
export function useLoginEmail(): string | null {
  return useContext(LoginEmailContext);
}

type GuardState = { status: 'pinging' } | { status: 'open'; email: string | null } | { status: 'redirecting' };

/**
 * Pings the login session first; children render only after the ping ends (spec section 7).
 * - answered without an email → back to /login, carrying the current query (spec section 2);
 * - the ping itself failed → logged, and the gate opens anyway: the page's own calls decide.
 */
export function LoginGuard({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const search = useSearch();
  const [, navigate] = useLocation();
  const [state, setState] = useState<GuardState>({ status: 'pinging' });

  useEffect(() => {
    let active = true;
    const sessionId = new URLSearchParams(search).get('session_id');
    loginPing(sessionId).then(
      (answer) => {
        if (!active) return;
        if (answer?.email) {
          setState({ status: 'open', email: answer.email });
        } else {
          setState({ status: 'redirecting' });
          navigate(`/login${search ? `?${search}` : ''}`, { replace: true });
        }
      },
      (error: unknown) => {
        console.warn('login ping failed', error);
        if (active) setState({ status: 'open', email: null });
      },
    );
    return () => {
      active = false;
    };
  }, [search, navigate]);

  if (state.status !== 'open') {
    return (
      <p className="page-loading" role="status">
        {t('app.loading')}
      </p>
    );
  }
  return <LoginEmailContext value={state.email}>{children}</LoginEmailContext>;
}
