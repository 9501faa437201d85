import { PROVIDERS, type Provider } from '../login/providers.ts';

/**
 * A message of the profile's Google and Microsoft switches. Kept as an i18n key (and the provider
 * it names), never as translated text: the profile may switch language after it appears (the
 * account's saved language wins once the user info has loaded), and the message follows.
 */
export interface SwitchMessage {
  kind: 'notice' | 'error';
  key: string;
  provider?: Provider;
  /** The link needs a recent sign-in: shown with a link to sign in again. */
  reauth?: boolean;
}

const UPSTREAM_ERRORS = new Set([
  'provider_not_configured',
  'provider_unavailable',
  'state_mismatch',
  'access_denied',
  'provider_error',
  'not_linked',
  'identity_in_use',
  'tenant_not_allowed',
]);

/** The message of the redirect back from a link (`?linked=<provider>` or `?error=<type>`), if any. */
export function upstreamArrival(search: string): SwitchMessage | null {
  const query = new URLSearchParams(search);
  const linked = query.get('linked');
  const provider = PROVIDERS.find((id) => id === linked);
  if (provider) return { kind: 'notice', key: 'upstream.switches.linked', provider };
  const error = query.get('error');
  if (!error) return null;
  if (error === 'reauthentication_required') return { kind: 'error', key: 'upstream.errors.reauthentication_required', reauth: true };
  // The per-IP budget of the link routes (the server redirects with it rather than answer JSON).
  if (error === 'too_many_requests') return { kind: 'error', key: 'errors.too_many_requests' };
  // A store or the database was down while the link was being made.
  if (error === 'service_unavailable') return { kind: 'error', key: 'errors.service_unavailable' };
  const type = error.startsWith('oauth/') ? error.slice('oauth/'.length) : '';
  return { kind: 'error', key: UPSTREAM_ERRORS.has(type) ? `upstream.errors.${type}` : 'errors.unexpected_error' };
}

/** i18next's `t`, as far as used here. */
interface Translate {
  (key: string): string;
  (key: string, options: { provider: string }): string;
}

/** The message in the language in use now. */
export function describeSwitchMessage(message: SwitchMessage, t: Translate): string {
  return message.provider ? t(message.key, { provider: t(`provider.${message.provider}`) }) : t(message.key);
}
