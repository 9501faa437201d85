import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { deviceName } from '../../../../src/http/device-name.ts';
import { isApiError } from '../../api/client.ts';
import { Button } from '../../components/button.tsx';
import { useAdminErrorHandler } from '../admin-auth.ts';
import { useConfirm } from '../confirm-modal.tsx';
import { failureText } from '../failure-text.ts';
import { useToast } from '../toast.tsx';
import { endTokenSession, type TokenEntry } from './tokens-api.ts';

interface EndSessionButtonProps {
  accountId: string;
  email: string;
  session: TokenEntry;
  /** The id of the row's session facts, which tell the operator (and a screen reader) which browser this is. */
  describedBy?: string;
  /** The session is over (ended now, or before): the page drops its row. */
  onEnded: (key: string) => void;
}

/**
 * "End session" on a sign-in session's row of the tokens view: after a confirmation that names the
 * browser, signs it out as the person's own "Sign out" of it does (DELETE
 * /api/tokens/{account_id}/sessions/{key}). Any operator may (support too: it only ends access);
 * the server refuses support on an operator's account, and says why through failureText.
 */
export function EndSessionButton({ accountId, email, session, describedBy, onEnded }: EndSessionButtonProps) {
  const { t } = useTranslation();
  const toast = useToast();
  const handleAdminError = useAdminErrorHandler();
  const [confirmModal, ask] = useConfirm();
  const [ending, setEnding] = useState(false);

  const { browser, os } = deviceName(session.user_agent ?? null);
  const browserName = browser ?? t('profile.sessions.unknown_device');
  const device = os ? t('profile.devices.name', { browser: browserName, os }) : browserName;
  const where = session.ip ? `${device}, ${t('admin.tokens_page.ip', { ip: session.ip })}` : device;

  // A warning, so the modal starts on Cancel: Enter alone must not sign someone out.
  const askEnd = () =>
    ask({
      title: t('admin.tokens_page.end_session_title'),
      content: t('admin.tokens_page.end_session_confirm', { email, session: where }),
      warning: true,
      confirmLabel: t('admin.tokens_page.end_session'),
      onConfirm: async () => {
        setEnding(true);
        try {
          const { applications } = await endTokenSession(accountId, session.key);
          toast('success', t('admin.tokens_page.session_ended', { applications }));
          onEnded(session.key);
        } catch (error) {
          if (handleAdminError(error, 'action')) return;
          if (isApiError(error) && error.status === 404) {
            // Signed out, timed out or ended by someone else since the page loaded: what the
            // operator wanted is so, and the row goes.
            toast('success', t('admin.tokens_page.session_already_ended'));
            onEnded(session.key);
          } else {
            toast('error', failureText(t('admin.tokens_page.end_session_failed'), error, t));
          }
        } finally {
          setEnding(false);
        }
      },
    });

  return (
    <>
      <Button type="button" variant="secondary" loading={ending} onClick={askEnd} aria-haspopup="dialog" aria-describedby={describedBy}>
        {t('admin.tokens_page.end_session')}
      </Button>
      {confirmModal}
    </>
  );
}
