/**
 * `second_factor=1` on /login: the page that sent the person here (a change of the profile's
 * second factors, or the console) needs a sign-in that proved a second factor, so the
 * credentials step asks for the passkey, or the password and then the authenticator code. The
 * flag only changes what the page says and focuses; the server decides whether the sign-in was
 * enough.
 */
export const SECOND_FACTOR_PARAM = 'second_factor';

export function asksSecondFactor(query: URLSearchParams): boolean {
  return query.get(SECOND_FACTOR_PARAM) === '1';
}
