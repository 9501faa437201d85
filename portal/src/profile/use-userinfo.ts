import { userinfo } from '../api/client.ts';
import type { UserInfo } from '../api/types.ts';
import { useLoad, type Loaded } from './use-load.ts';

/** The signed-in person's profile; without a session (401) the page goes to /login. */
export function useUserInfo(): Loaded<UserInfo> {
  return useLoad(userinfo);
}
