import type { ActivityEvent } from './profile-api.ts';

/** An i18n key and the values it takes; values that are keys themselves are translated first. */
export interface ActivityText {
  key: string;
  values: Record<string, string | { key: string }>;
}

const prefix = 'profile.activity';

const simple: Record<string, string> = {
  'login.failed': 'login_failed',
  'login.locked': 'login_locked',
  'password_reset.requested': 'password_reset_requested',
  'password_reset.completed': 'password_reset_completed',
  'password.created': 'password_created',
  'password.changed': 'password_changed',
  'password.setup_link.sent': 'password_setup_link_sent',
  'totp.activated': 'totp_activated',
  'totp.merged': 'totp_merged',
  'passkey.registered': 'passkey_registered',
  'passkey.removed': 'passkey_removed',
  'passkey.clone_suspected': 'passkey_clone_suspected',
  'device.revoked': 'device_revoked',
  'device.remembered': 'device_remembered',
  'session.revoked': 'session_revoked',
  'sessions.revoked_others': 'sessions_revoked_others',
  'operator.password_reset.sent': 'operator_password_reset_sent',
  'operator.account.unlocked': 'operator_account_unlocked',
  'operator.account.signed_out': 'operator_account_signed_out',
  'operator.account.session_ended': 'operator_account_session_ended',
  'operator.tokens.viewed': 'operator_tokens_viewed',
};

/** The sign-in's first factor (src/login/steps.ts FirstFactor). */
const METHODS = new Set(['password', 'email_code', 'oidc', 'webauthn']);
/** Brand names are the same in both languages: the shared provider keys. */
const PROVIDER_METHODS = new Set(['google', 'microsoft']);
const TYPES = new Set(['password', 'oidc', 'webauthn', 'totp']);

const action = (name: string, values: ActivityText['values'] = {}): ActivityText => ({ key: `${prefix}.actions.${name}`, values });
const method = (value: string | undefined) =>
  value && PROVIDER_METHODS.has(value) ? { key: `provider.${value}` } : { key: `${prefix}.methods.${value && METHODS.has(value) ? value : 'other'}` };
const type = (value: string | undefined) => ({ key: `${prefix}.types.${value && TYPES.has(value) ? value : 'other'}` });

/** What a line of "Recent activity" says, by the event's action; unknown actions get a generic line. */
export function activityText(event: ActivityEvent): ActivityText {
  const { details } = event;
  const known = simple[event.action];
  if (known) return action(known);
  switch (event.action) {
    case 'login.succeeded':
      return action('login_succeeded', { method: method(details.method) });
    case 'upstream.linked':
      return action('upstream_linked', { provider: method(details.provider) });
    case 'credential.removed':
      return action('credential_removed', { type: type(details.type) });
    case 'operator.credential.deleted':
      return action('operator_credential_deleted', { type: type(details.type) });
    case 'account.setting.changed':
      if (details.key === 'locale' && (details.value === 'sv' || details.value === 'en')) {
        return action('setting_locale', { language: { key: `language.${details.value}` } });
      }
      return action(details.key === 'name' ? 'setting_name' : 'other');
    case 'devices.revoked_all':
      // Signing the others out keeps this browser's device: not "all".
      return action(details.reason === 'signed_out_others' ? 'devices_revoked_others' : 'devices_revoked_all');
    case 'grant.revoked':
      return action('grant_revoked', { client: details.client ?? '' });
    case 'operator.impersonation.started':
      return action('impersonation', {
        tenant: details.tenant ?? { key: `${prefix}.unknown_tenant` },
        reason: details.reason ?? { key: `${prefix}.no_reason` },
      });
    case 'operator.account.email_change_requested':
      return action('operator_email_change_requested', { email: details.email ?? '' });
    case 'account.email_changed':
      return action('email_changed', { email: details.email ?? '' });
    case 'operator.account.email_change_withdrawn':
      return action('operator_email_change_withdrawn', { email: details.email ?? '' });
    case 'operator.account.email_change_finished':
      return action('operator_email_change_finished', { email: details.email ?? '' });
    // Ended by a newer request, or refused: the line names the address; the reason stays in the
    // audit log.
    case 'account.email_change_cancelled':
      return action('email_change_cancelled', { email: details.email ?? '' });
    case 'account.email_change_refused':
      return action('email_change_refused', { email: details.email ?? '' });
    case 'operator.impersonation.used':
      return action('impersonation_used', { tenant: details.tenant ?? { key: `${prefix}.unknown_tenant` } });
  }
  return action(event.action.startsWith('operator.') ? 'operator_other' : 'other');
}
