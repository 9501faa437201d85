import { useCallback, useState } from 'react';
import { signOutThisBrowser } from '../api/client.ts';
import { LOGIN_PATH, profileFailure } from './profile-errors.ts';

/**
 * Signs this browser out of Nyckel (its session, its OP sessions and the applications signed in
 * through them), then loads /login as a new page: nothing of the signed-in page stays in memory.
 * A session that had already ended (401) counts as signed out.
 */
export async function signOutAndLeave(): Promise<void> {
  try {
    await signOutThisBrowser();
  } catch (error) {
    if (profileFailure(error).kind !== 'signed-out') throw error;
  }
  window.location.assign(LOGIN_PATH);
}

export interface SignOut {
  /** True from the click until the browser leaves (or the sign-out fails). */
  pending: boolean;
  failed: boolean;
  signOut: () => Promise<void>;
}

/** The header's Sign out: pending while the browser leaves, `failed` for the page's error display. */
export function useSignOut(): SignOut {
  const [pending, setPending] = useState(false);
  const [failed, setFailed] = useState(false);
  const signOut = useCallback(async () => {
    setPending(true);
    setFailed(false);
    try {
      await signOutAndLeave();
    } catch {
      setFailed(true);
      setPending(false);
    }
  }, []);
  return { pending, failed, signOut };
}
