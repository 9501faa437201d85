/** The profile's pages (routes in app.tsx). */
export const PROFILE_PATH = '/profile';
export const TOTP_SETUP_PATH = '/profile/credentials/totp/setup';

/**
 * A confirmation carried to /profile in the history entry's state (not the URL), e.g. after the
 * setup page activated an authenticator. Only known names are shown.
 */
export type ArrivalNotice = 'totp-activated';

export interface ProfileHistoryState {
  notice: ArrivalNotice;
}

export function arrivalNotice(state: unknown): ArrivalNotice | null {
  if (typeof state !== 'object' || state === null) return null;
  const notice = (state as { notice?: unknown }).notice;
  return notice === 'totp-activated' ? notice : null;
}
