import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../components/alert.tsx';
import { Button } from '../components/button.tsx';
import { activityText } from './activity-text.ts';
import { accountActivity, type ActivityEvent } from './profile-api.ts';
import { useLoad } from './use-load.ts';

/** The last 20 things that happened to the account: sign-ins, changes, and what support did. */
export function RecentActivity() {
  const { t } = useTranslation();
  const activity = useLoad(accountActivity);
  const { state } = activity;
  return (
    <section className="profile-section" aria-labelledby="activity-title">
      <h2 id="activity-title">{t('profile.activity.title')}</h2>
      {state.status === 'loading' && (
        <p className="page-loading" role="status">
          {t('app.loading')}
        </p>
      )}
      {state.status === 'failed' && (
        <>
          <ErrorAlert message={t('profile.activity.load_failed')} />
          <Button type="button" variant="secondary" onClick={activity.reload}>
            {t('app.retry')}
          </Button>
        </>
      )}
      {state.status === 'ready' && state.data.events.length === 0 && <p className="muted">{t('profile.activity.empty')}</p>}
      {state.status === 'ready' && state.data.events.length > 0 && (
        <ul className="profile-list activity-list">
          {state.data.events.map((event) => (
            <ActivityItem key={event.id} event={event} />
          ))}
        </ul>
      )}
    </section>
  );
}

function ActivityItem({ event }: { event: ActivityEvent }) {
  const { t, i18n } = useTranslation();
  const { key, values } = activityText(event);
  const translated = Object.fromEntries(Object.entries(values).map(([name, value]) => [name, typeof value === 'string' ? value : t(value.key)]));
  const at = new Date(event.at);
  return (
    <li className={event.by === 'support' ? 'profile-item activity-support' : 'profile-item'}>
      <div className="item-main">
        <span className="item-name">{t(key, translated)}</span>
        <time className="muted" dateTime={event.at}>
          {new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium', timeStyle: 'short' }).format(at)}
        </time>
      </div>
    </li>
  );
}
