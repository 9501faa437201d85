/**
 * Parameters of one visit only, never carried between /login and /login/reset-password: `error`
 * is a message already shown, `email` would start the sign-in at once on the way back, and
 * `login_hint` would put back the address the person may have corrected (the reset page starts
 * with the address typed on the login page instead).
 */
const NOT_CARRIED = ['error', 'email', 'login_hint'];

/**
 * The query "Forgot password?" and "Back to sign in" carry, so the reset request gets `type`
 * (its mail's link leads on to e.g. athena) and the way back returns into the same sign-in:
 * client_id and interaction (the OAuth request), return_to, lang, mode, session_id.
 */
function carried(search: string): string {
  const query = new URLSearchParams(search);
  for (const name of NOT_CARRIED) query.delete(name);
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}

/** "Forgot password?" from the login page whose query is `loginSearch`. */
export function resetPasswordHref(loginSearch: string): string {
  return `/login/reset-password${carried(loginSearch)}`;
}

/** "Back to sign in" from the reset page whose query is `resetSearch`. */
export function backToLoginHref(resetSearch: string): string {
  return `/login${carried(resetSearch)}`;
}
