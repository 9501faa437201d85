import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../components/alert.tsx';
import type { LoadStatus } from './load-status.ts';

interface ListStatusProps {
  status: LoadStatus;
  /** The spec's failure message, already translated ("Failed to load accounts", ...). */
  failedMessage: string;
}

/** The loading and failed states of a list; idle shows nothing here (the list itself speaks). */
export function ListStatus({ status, failedMessage }: ListStatusProps) {
  const { t } = useTranslation();
  if (status === 'loading') {
    return (
      <p className="page-loading" role="status">
        <span className="spinner" aria-hidden="true" /> {t('app.loading')}
      </p>
    );
  }
  if (status === 'failed') return <ErrorAlert message={failedMessage} />;
  return null;
}
