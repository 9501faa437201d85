import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorAlert, Notice } from '../components/alert.tsx';
import { Button } from '../components/button.tsx';
import { deviceName } from '../../../src/http/device-name.ts';
import { accountSessions, signOutApplication, signOutOtherSessions, signOutSession, type ApplicationListing, type SessionListing } from './profile-api.ts';
import { profileFailure } from './profile-errors.ts';
import { RELATIVE_TIME_KEYS, relativeTime } from './relative-time.ts';
import { useSessionExpired } from './session-expired.ts';
import { signOutAndLeave } from './sign-out.ts';
import { useLoad } from './use-load.ts';

type Outcome = 'session' | 'others' | 'application' | 'failed' | null;

/**
 * The person's Nyckel sessions (this browser first) and the applications holding tokens, each
 * with Sign out, and Sign out everywhere else. Signing a session out also signs out the
 * applications it opened (their refresh tokens stop working). Signing this browser out ends on
 * /login.
 */
export function ActiveSessions() {
  const { t } = useTranslation();
  const sessionExpired = useSessionExpired();
  const sessions = useLoad(accountSessions);
  const [pending, setPending] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const { state } = sessions;

  const run = async (key: string, action: () => Promise<unknown>, success: Outcome) => {
    setPending(key);
    setOutcome(null);
    try {
      await action();
      setOutcome(success);
      // The clicked button is gone: keep focus in the section.
      headingRef.current?.focus();
    } catch (error) {
      const failure = profileFailure(error);
      if (failure.kind === 'signed-out') return sessionExpired();
      if (!(failure.kind === 'rejected' && failure.status === 404)) setOutcome('failed');
    } finally {
      setPending(null);
      sessions.reload();
    }
  };

  const signOutHere = async () => {
    setPending('here');
    setOutcome(null);
    try {
      // Stays pending while the browser leaves for /login.
      await signOutAndLeave();
    } catch {
      setPending(null);
      setOutcome('failed');
      headingRef.current?.focus();
    }
  };

  const others = state.status === 'ready' && state.data.sessions.some((session) => !session.current);
  return (
    <section className="profile-section" aria-labelledby="sessions-title">
      <h2 id="sessions-title" ref={headingRef} tabIndex={-1}>
        {t('profile.sessions.title')}
      </h2>
      <p className="muted">{t('profile.sessions.intro')}</p>
      {state.status === 'loading' && (
        <p className="page-loading" role="status">
          {t('app.loading')}
        </p>
      )}
      {state.status === 'failed' && (
        <>
          <ErrorAlert message={t('profile.sessions.load_failed')} />
          <Button type="button" variant="secondary" onClick={sessions.reload}>
            {t('app.retry')}
          </Button>
        </>
      )}
      {state.status === 'ready' && (
        <>
          <ul className="profile-list" aria-label={t('profile.sessions.title')}>
            {state.data.sessions.map((session) => (
              <SessionItem
                key={session.id}
                session={session}
                pending={pending === (session.current ? 'here' : session.id)}
                disabled={pending !== null}
                onSignOut={() => void (session.current ? signOutHere() : run(session.id, () => signOutSession(session.id), 'session'))}
              />
            ))}
          </ul>
          {others && (
            <Button
              type="button"
              variant="secondary"
              loading={pending === 'others'}
              disabled={pending !== null}
              onClick={() => void run('others', signOutOtherSessions, 'others')}
            >
              {t('profile.sessions.sign_out_others')}
            </Button>
          )}
          <h3>{t('profile.sessions.applications')}</h3>
          {state.data.applications.length === 0 ? (
            <p className="muted">{t('profile.sessions.no_applications')}</p>
          ) : (
            <ul className="profile-list" aria-label={t('profile.sessions.applications')}>
              {state.data.applications.map((application) => (
                <ApplicationItem
                  key={application.id}
                  application={application}
                  pending={pending === application.id}
                  disabled={pending !== null}
                  onSignOut={() => void run(application.id, () => signOutApplication(application.id), 'application')}
                />
              ))}
            </ul>
          )}
        </>
      )}
      {outcome === 'session' && <Notice message={t('profile.sessions.signed_out')} />}
      {outcome === 'others' && <Notice message={t('profile.sessions.signed_out_others')} />}
      {outcome === 'application' && <Notice message={t('profile.sessions.application_signed_out')} />}
      <ErrorAlert message={outcome === 'failed' ? t('profile.sessions.sign_out_failed') : null} />
    </section>
  );
}

interface ItemProps {
  pending: boolean;
  disabled: boolean;
  onSignOut: () => void;
}

function SessionItem({ session, pending, disabled, onSignOut }: ItemProps & { session: SessionListing }) {
  const { t } = useTranslation();
  const { browser, os } = deviceName(session.user_agent);
  const browserName = browser ?? t('profile.sessions.unknown_device');
  const name = os ? t('profile.devices.name', { browser: browserName, os }) : browserName;
  const when = relativeTime(session.signed_in_at, new Date());
  return (
    <li className="profile-item">
      <div className="item-main">
        <span className="item-name">
          {name}
          {session.current && <span className="badge">{t('profile.sessions.current')}</span>}
        </span>
        {when && <span className="muted">{t('profile.sessions.signed_in', { when: t(RELATIVE_TIME_KEYS[when.unit], { count: when.count }) })}</span>}
      </div>
      <Button type="button" variant="secondary" loading={pending} disabled={disabled} onClick={onSignOut}>
        {session.current ? (
          t('profile.sessions.sign_out_here')
        ) : (
          <>
            {t('profile.sessions.sign_out')}
            <span className="visually-hidden"> {name}</span>
          </>
        )}
      </Button>
    </li>
  );
}

function ApplicationItem({ application, pending, disabled, onSignOut }: ItemProps & { application: ApplicationListing }) {
  const { t } = useTranslation();
  return (
    <li className="profile-item">
      <div className="item-main">
        <span className="item-name">{application.client_name}</span>
        {application.current && <span className="muted">{t('profile.sessions.application_current')}</span>}
      </div>
      <Button type="button" variant="secondary" loading={pending} disabled={disabled} onClick={onSignOut}>
        {t('profile.sessions.sign_out')}
        <span className="visually-hidden"> {application.client_name}</span>
      </Button>
    </li>
  );
}
