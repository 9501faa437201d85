import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { availableTenants, isApiError } from '../api/client.ts';
import type { AvailableTenantsResponse, TenantSummary } from '../api/types.ts';
import { ErrorAlert } from '../components/alert.tsx';
import { AuthLayout } from '../components/auth-layout.tsx';
import { Button } from '../components/button.tsx';
import { LoginGuard, useLoginEmail } from '../components/login-guard.tsx';
import { useAutoFocus } from '../components/use-auto-focus.ts';
import { useSignOut } from '../profile/sign-out.ts';
import { SHARING_PORTAL_PATH } from './done-target.ts';
import { retryableErrorKey } from './error-messages.ts';
import { nextFailedTry, RetryFailure, type FailedTry } from './retry-failure.tsx';
import { ACCESSED_TENANTS_KEY, daysSinceAccess, parseAccessedTenants, recordAccess, sortTenants, type AccessedTenants } from './tenants.ts';

function readAccessed(): AccessedTenants {
  try {
    return parseAccessedTenants(localStorage.getItem(ACCESSED_TENANTS_KEY));
  } catch {
    return {};
  }
}

/** /login/select-tenant, behind the login guard. */
export function SelectTenantPage() {
  return (
    <LoginGuard>
      <TenantChooser />
    </LoginGuard>
  );
}

function TenantChooser() {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const email = useLoginEmail();
  const [answer, setAnswer] = useState<AvailableTenantsResponse | null>(null);
  const [accessed] = useState(readAccessed);
  // Each run of the call; Try again starts another.
  const [loadRun, setLoadRun] = useState(0);
  const [loading, setLoading] = useState(true);
  const [failure, setFailure] = useState<FailedTry | null>(null);

  useEffect(() => {
    let active = true;
    availableTenants().then(
      (result) => active && setAnswer(result),
      (error: unknown) => {
        if (!active) return;
        // 401: the session is gone, so signing in again is the way on (spec section 8). Anything
        // else (no answer, 429, 5xx) may pass: the person stays, signed in, and may try again.
        if (isApiError(error) && error.status === 401) {
          navigate('/login', { replace: true });
          return;
        }
        setFailure((previous) => nextFailedTry(previous, retryableErrorKey(error) ?? 'errors.unexpected_error'));
        setLoading(false);
      },
    );
    return () => {
      active = false;
    };
  }, [navigate, loadRun]);

  if (!answer && failure) {
    return (
      <AuthLayout>
        <section className="step">
          <h1 id="tenants-title">{t('tenants.title')}</h1>
          {email && <p className="signed-in-as">{t('tenants.signed_in_as', { email })}</p>}
          <RetryFailure
            failure={failure}
            retrying={loading}
            onRetry={() => {
              setLoading(true);
              setLoadRun((n) => n + 1);
            }}
          />
          <SignOutAction prominent={false} />
        </section>
      </AuthLayout>
    );
  }

  if (!answer) {
    return (
      <AuthLayout>
        <p className="page-loading" role="status">
          {t('app.loading')}
        </p>
      </AuthLayout>
    );
  }

  const tenants = sortTenants(answer.tenants ?? [], accessed);
  return <TenantList answer={answer} tenants={tenants} accessed={accessed} email={email} />;
}

interface TenantListProps {
  answer: AvailableTenantsResponse;
  tenants: TenantSummary[];
  accessed: AccessedTenants;
  email: string | null;
}

export function TenantList({ answer, tenants, accessed, email }: TenantListProps) {
  const { t } = useTranslation();
  // Focus starts on the first tenant that can be opened, else on the sharing portal, else on
  // signing out: with nowhere to go, using another account is the way on.
  const firstOpen = tenants.findIndex((tenant) => tenant.url);
  const portalRef = useAutoFocus<HTMLAnchorElement>(firstOpen === -1);
  const nowhereToGo = firstOpen === -1 && !answer.is_stakeholder;
  return (
    <AuthLayout brand={answer.is_stakeholder && tenants.length === 0 ? t('app.sharing_portal') : undefined}>
      <section className="step">
        <h1 id="tenants-title">{t('tenants.title')}</h1>
        {email && <p className="signed-in-as">{t('tenants.signed_in_as', { email })}</p>}
        {tenants.length === 0 && !answer.is_stakeholder && <p>{t('tenants.empty')}</p>}
        <ul className="tenant-list">
          {tenants.map((tenant, index) => (
            <li key={tenant.id}>
              <TenantCard tenant={tenant} accessed={accessed} autoFocus={index === firstOpen} />
            </li>
          ))}
        </ul>
        {answer.is_stakeholder && (
          <a ref={portalRef} className="btn btn-secondary" href={SHARING_PORTAL_PATH}>
            {t('tenants.sharing_portal')}
          </a>
        )}
        <SignOutAction prominent={nowhereToGo} />
      </section>
    </AuthLayout>
  );
}

/**
 * Sign out of this browser and start again at /login: for a person signed in with another account
 * than the one they meant, or with one that has no access yet.
 */
function SignOutAction({ prominent }: { prominent: boolean }) {
  const { t } = useTranslation();
  const { pending, failed, signOut } = useSignOut();
  const ref = useAutoFocus<HTMLButtonElement>(prominent);
  // The button was disabled while signing out: after a failure focus goes back to it.
  useEffect(() => {
    if (failed) ref.current?.focus();
  }, [failed, ref]);
  return (
    <>
      <Button ref={ref} type="button" variant={prominent ? 'secondary' : 'link'} loading={pending} onClick={() => void signOut()}>
        {t('tenants.sign_out')}
      </Button>
      <ErrorAlert message={failed ? t('tenants.sign_out_failed') : null} />
    </>
  );
}

/**
 * A tenant to open. One without an address yet is shown, but not as a link: an <a> without href
 * cannot be reached with Tab and does nothing when clicked, so it says why instead.
 */
export function TenantCard({ tenant, accessed, autoFocus }: { tenant: TenantSummary; accessed: AccessedTenants; autoFocus: boolean }) {
  const { t } = useTranslation();
  const ref = useAutoFocus<HTMLAnchorElement>(autoFocus);
  const days = daysSinceAccess(accessed, tenant.id, new Date());
  const lastAccess = days === null ? t('tenants.never') : days === 0 ? t('tenants.today') : t('tenants.days', { count: days });
  const remember = () => {
    try {
      localStorage.setItem(ACCESSED_TENANTS_KEY, JSON.stringify(recordAccess(readAccessed(), tenant.id, new Date())));
    } catch {
      // Storage may be unavailable (private mode); the link still works.
    }
  };
  if (!tenant.url) {
    return (
      <div className="tenant-card unavailable">
        <span className="tenant-name">{tenant.name}</span>
        <span className="tenant-slug">{tenant.slug}</span>
        <span className="tenant-access">{t('tenants.no_address')}</span>
      </div>
    );
  }
  return (
    <a ref={ref} className="tenant-card" href={tenant.url} onClick={remember}>
      <span className="tenant-name">{tenant.name}</span>
      <span className="tenant-slug">{tenant.slug}</span>
      <span className="tenant-access">{lastAccess}</span>
    </a>
  );
}
