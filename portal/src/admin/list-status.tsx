import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../components/alert.tsx';
import { failureText } from './failure-text.ts';
import type { LoadStatus } from './load-status.ts';

interface ListStatusProps {
  status: LoadStatus;
  /** The spec's failure message, already translated ("Failed to load accounts", ...). */
  failedMessage: string;
  /** What the load threw (the Loader's `error`): the message then says why when it can (failureText). */
  error?: unknown;
}

/**
 * The loading and failed states of a list; idle shows nothing here (the list itself speaks). A
 * failure says why when the answer tells: a spent read budget (429) how long to wait, a refused
 * role, an outage.
 */
export function ListStatus({ status, failedMessage, error }: ListStatusProps) {
  const { t } = useTranslation();
  if (status === 'loading') {
    return (
      <p className="page-loading" role="status">
        <span className="spinner" aria-hidden="true" /> {t('app.loading')}
      </p>
    );
  }
  if (status === 'failed') return <ErrorAlert message={failureText(failedMessage, error, t)} />;
  return null;
}
