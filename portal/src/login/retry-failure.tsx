import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../components/alert.tsx';
import { Button } from '../components/button.tsx';
import { useFocusOnEach } from '../components/use-auto-focus.ts';

/** A failed try of a call the page needs: the message's i18n key, and how many tries failed so far. */
export interface FailedTry {
  key: string;
  count: number;
}

/** The failure after `previous`, with its message. */
export function nextFailedTry(previous: FailedTry | null, key: string): FailedTry {
  return { key, count: (previous?.count ?? 0) + 1 };
}

interface RetryFailureProps {
  failure: FailedTry;
  /** A new try is running: Try again is busy (and disabled). */
  retrying: boolean;
  onRetry: () => void;
}

/**
 * A call the page needs failed for a reason that may pass (no answer, too many requests, the
 * service failing): say so and offer Try again, keeping the person on the page (and whatever the
 * page was opened with). Focus goes to Try again after each failure: it was disabled while the
 * try ran, which left focus on the page.
 */
export function RetryFailure({ failure, retrying, onRetry }: RetryFailureProps) {
  const { t } = useTranslation();
  const retryRef = useFocusOnEach<HTMLButtonElement>(failure.count);
  return (
    <>
      <ErrorAlert message={t(failure.key)} />
      <Button ref={retryRef} type="button" loading={retrying} onClick={onRetry}>
        {t('app.retry')}
      </Button>
    </>
  );
}
