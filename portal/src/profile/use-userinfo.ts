import { useEffect, useState } from 'react';
import { useLocation } from 'wouter';
import { isApiError, userinfo } from '../api/client.ts';
import type { UserInfo } from '../api/types.ts';

export type UserInfoState = { status: 'loading' } | { status: 'failed' } | { status: 'ready'; user: UserInfo };

/** Loads the signed-in person's profile; without a session (401) the page goes to /login. */
export function useUserInfo(): UserInfoState {
  const [, navigate] = useLocation();
  const [state, setState] = useState<UserInfoState>({ status: 'loading' });
  useEffect(() => {
    let active = true;
    userinfo().then(
      (user) => active && setState({ status: 'ready', user }),
      (error: unknown) => {
        if (!active) return;
        if (isApiError(error) && error.status === 401) navigate('~/login', { replace: true });
        else setState({ status: 'failed' });
      },
    );
    return () => {
      active = false;
    };
  }, [navigate]);
  return state;
}
