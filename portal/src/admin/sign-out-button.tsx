import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { signOutThisBrowser } from '../api/client.ts';
import { Button } from '../components/button.tsx';
import { useToast } from './toast.tsx';

/**
 * Signs this browser out of Nyckel (its session and the applications signed in through it), then
 * loads /login afresh, so nothing of the console stays in memory. An operator on a shared or
 * borrowed computer needs it. The button stays busy until the new page has loaded.
 */
export function SignOutButton() {
  const { t } = useTranslation();
  const toast = useToast();
  const [pending, setPending] = useState(false);

  const signOut = async () => {
    setPending(true);
    try {
      // The server answers the same when the session had already ended.
      await signOutThisBrowser();
    } catch {
      toast('error', t('admin.sign_out_failed'));
      setPending(false);
      return;
    }
    window.location.assign('/login');
  };

  return (
    <Button type="button" variant="secondary" loading={pending} onClick={() => void signOut()}>
      {t('admin.sign_out')}
    </Button>
  );
}
