import { describe, expect, it } from 'vitest';
import en from '../../portal/src/i18n/en.json' with { type: 'json' };
import sv from '../../portal/src/i18n/sv.json' with { type: 'json' };
import { ApiError } from '../../portal/src/api/client.ts';
import { offersPasskey, passkeyProblem, PASSKEY_PROBLEM_KEYS } from '../../portal/src/api/passkeys.ts';
import type { LoginSessionResponse } from '../../portal/src/api/types.ts';
import { translate } from '../portal/translate.ts';

const domError = (name: string) => Object.assign(new Error(name), { name });
const api = (status: number, type: string) => new ApiError(status, '', [{ type, msg: '' }]);

describe('the portal’s passkey helpers', () => {
  it.each([
    ['the prompt closed or timed out', domError('NotAllowedError'), 'cancelled'],
    ['the ceremony aborted', domError('AbortError'), 'cancelled'],
    ['a passkey already on this authenticator', domError('InvalidStateError'), 'already_registered'],
    ['a security error (wrong RP ID, insecure page)', domError('SecurityError'), 'not_allowed'],
    ['WebAuthn missing', new Error('WebAuthn is not supported in this browser'), 'not_allowed'],
    ['another account’s passkey', api(401, 'passkey/unknown'), 'unknown'],
    ['no passkey on the account', api(409, 'passkey/none'), 'unknown'],
    ['a failed verification', api(401, 'passkey/invalid'), 'invalid'],
    ['a failed registration', api(400, 'passkey/registration-invalid'), 'invalid'],
    ['an expired challenge', api(410, 'passkey/challenge-expired'), 'expired'],
    ['as many passkeys as an account may have', api(409, 'passkey/limit-reached'), 'limit'],
    ['no answer', api(0, 'network_error'), 'network'],
    ['the service down', api(503, 'service_unavailable'), 'network'],
    ['the login session gone (the flow shows it)', api(401, 'login_session_missing'), null],
    ['a locked account (the flow shows it)', api(423, 'account_locked'), null],
    ['a needed re-authentication (the profile handles it)', api(403, 'reauthentication_required'), null],
  ])('%s → %s', (_name, error, problem) => {
    expect(passkeyProblem(error)).toBe(problem);
  });

  it('has a message for every problem in English and Swedish', () => {
    for (const key of Object.values(PASSKEY_PROBLEM_KEYS)) {
      expect(translate(en, key), key).not.toBe(key);
      expect(translate(sv, key), key).not.toBe(key);
      expect(translate(sv, key), key).not.toBe(translate(en, key));
    }
  });

  it('offers a passkey only when the answer says passkey: true', () => {
    const answer = { state: 'CredentialsRequired', session_id: 's', is_user: true, is_stakeholder: false, available_credentials: [], allow_totp_remember: false } as LoginSessionResponse;
    expect(offersPasskey(answer)).toBe(false);
    expect(offersPasskey({ ...answer, passkey: true } as LoginSessionResponse)).toBe(true);
    expect(offersPasskey({ ...answer, passkey: 'yes' } as unknown as LoginSessionResponse)).toBe(false);
    expect(offersPasskey(null)).toBe(false);
  });
});
