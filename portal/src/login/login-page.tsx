import { useEffect, useMemo, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useSearch } from 'wouter';
import { loginPing, loginStart } from '../api/client.ts';
import { Notice } from '../components/alert.tsx';
import { AuthLayout } from '../components/auth-layout.tsx';
import { doneTarget, SELECT_TENANT_PATH } from './done-target.ts';
import { RESTART_DELAY_MS } from './error-messages.ts';
import { useLoginFlow, type LoginFlow } from './login-flow.ts';
import { asksSecondFactor } from './second-factor.ts';
import { CreateCredentialStep } from './steps/create-credential-step.tsx';
import { CredentialsStep } from './steps/credentials-step.tsx';
import { MfaStep, TotpResetStep } from './steps/mfa-step.tsx';
import { OtpStep } from './steps/otp-step.tsx';
import { ResetRequiredStep } from './steps/reset-required-step.tsx';
import { StartStep } from './steps/start-step.tsx';
import { useInteractionCheck } from './use-interaction-check.ts';

/**
 * /login. Query: mode (refresh = compact), session_id, email (starts at once), client_id (OAuth
 * authorize flow), interaction (checked first: use-interaction-check.ts), type, error, lang (hides
 * the language selector), return_to (done-target.ts), second_factor (second-factor.ts).
 */
export function LoginPage() {
  const search = useSearch();
  const checked = useInteractionCheck(search);
  return checked ? <LoginFlowPage search={search} /> : <LoginLoading query={new URLSearchParams(search)} />;
}

/** While the page cannot yet know what to show: no form a person might start typing into. */
function LoginLoading({ query }: { query: URLSearchParams }) {
  const { t } = useTranslation();
  return (
    <AuthLayout showLanguages={!query.has('lang')} compact={query.get('mode') === 'refresh'}>
      <p className="page-loading" role="status">
        {t('app.loading')}
      </p>
    </AuthLayout>
  );
}

function LoginFlowPage({ search }: { search: string }) {
  const { t } = useTranslation();
  const query = useMemo(() => new URLSearchParams(search), [search]);
  const [, navigate] = useLocation();
  const flow = useLoginFlow(query);
  const { state, dispatch } = flow;

  usePingThenAutoStart(flow, query, search);

  // login_session_missing / invalid_login_session_state: show the message, then back to Start.
  useEffect(() => {
    if (state.error?.kind !== 'restart') return;
    const timer = window.setTimeout(() => dispatch({ type: 'restarted' }), RESTART_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [state.error, dispatch]);

  useEffect(() => {
    if (state.step !== 'Done' || !state.session) return;
    const target = doneTarget(state.session, search, window.location.origin);
    if (target === SELECT_TENANT_PATH) navigate(target, { replace: true });
    else window.location.assign(target);
  }, [state.step, state.session, search, navigate]);

  const sharingPortal = state.session?.is_stakeholder === true || query.get('client_id') === 'athena';
  const title = sharingPortal ? t('app.sharing_portal') : t('login.title');

  if (!state.pinged) return <LoginLoading query={query} />;

  return (
    <AuthLayout
      brand={sharingPortal ? t('app.sharing_portal') : undefined}
      showLanguages={!query.has('lang')}
      compact={query.get('mode') === 'refresh'}
    >
      <Step flow={flow} title={title} search={search} query={query} />
    </AuthLayout>
  );
}

interface StepProps {
  flow: LoginFlow;
  title: string;
  search: string;
  query: URLSearchParams;
}

function Step({ flow, title, search, query }: StepProps) {
  const { t } = useTranslation();
  switch (flow.state.step) {
    case 'Start':
      return <StartStep flow={flow} title={title} search={search} />;
    case 'PasswordResetRequired':
      return <ResetRequiredStep flow={flow} resetType={query.get('type')} />;
    case 'OTPRequired':
      return <OtpStep flow={flow} />;
    case 'CredentialsRequired':
      return <CredentialsStep flow={flow} title={title} allowAutoRedirect={!query.has('error')} secondFactor={asksSecondFactor(query)} />;
    case 'MfaRequired':
      return <MfaStep flow={flow} />;
    case 'TOTPResetRequired':
      return <TotpResetStep flow={flow} />;
    case 'AskedCreateCredential':
      return <CreateCredentialStep flow={flow} />;
    case 'Done':
      return <Notice message={t('login.done')} />;
  }
}

/**
 * On load: ping the login session (with session_id when present, and the page's request),
 * then show an `error` passed in the query, then start at once when `email` is in the query — unless the ping resumed a session
 * that is already past Start. A relying party's `login_hint` only fills in the address, from the
 * first render (useLoginFlow).
 */
function usePingThenAutoStart(flow: LoginFlow, query: URLSearchParams, search: string): void {
  const { dispatch, submit } = flow;
  const ran = useRef(false);
  useEffect(() => {
    if (ran.current) return;
    ran.current = true;
    const email = query.get('email')?.trim();
    const error = query.get('error');
    const afterPing = (resumed: boolean) => {
      if (error) dispatch({ type: 'failed', error: { status: 400, detail: [{ type: error, msg: '' }] } });
      else if (email && !resumed) void submit(() => loginStart(email, search));
    };
    loginPing(query.get('session_id'), query).then(
      (answer) => {
        dispatch({ type: 'pinged', answer });
        afterPing(Boolean(answer?.state && answer.state !== 'Start'));
      },
      (failure: unknown) => {
        console.warn('login ping failed', failure);
        dispatch({ type: 'pinged' });
        afterPing(false);
      },
    );
  }, [dispatch, submit, query, search]);
}
