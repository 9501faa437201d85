/**
 * `second_factor=1` on /login: the page that sent the person here (a change of the profile's
 * second factors, or the console) needs a sign-in that proved a second factor, so the
 * credentials step asks for the passkey, or the password and then the authenticator code. The
 * flag reaches the server with the page's query string (/auth/login/start), which then asks for
 * the code even on a browser remembered for it; the server decides whether the sign-in was
 * enough.
 */
export const SECOND_FACTOR_PARAM = 'second_factor';

export function asksSecondFactor(query: URLSearchParams): boolean {
  return query.get(SECOND_FACTOR_PARAM) === '1';
}
