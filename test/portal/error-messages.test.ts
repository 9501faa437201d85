import i18next from 'i18next';
import { describe, expect, it } from 'vitest';
import { checkPasswordPolicy } from '../../src/credentials/password/policy.ts';
import { emailSchema } from '../../src/login/login.schemas.ts';
import {
  confirmResetErrorText,
  describeLoginError,
  KNOWN_SERVER_MESSAGES,
  LOGIN_ERROR_TYPES,
  loginErrorFrom,
  loginErrorFromType,
  isSpentResetLink,
  resetRequestErrorKey,
  retryableErrorKey,
} from '../../portal/src/login/error-messages.ts';
import { LOCK_WAIT_KEYS } from '../../portal/src/login/lock-wait.ts';
import en from '../../portal/src/i18n/en.json' with { type: 'json' };
import sv from '../../portal/src/i18n/sv.json' with { type: 'json' };
import { translate } from './translate.ts';

const error = (type: string, status = 400, msg = '') => ({ status, detail: [{ type, msg }] });

describe('login error messages (spec section 8)', () => {
  it.each([
    ['invalid_credentials', 'Invalid credentials (passwords are case-sensitive)', 'soft'],
    ['login_session_expired', 'Login session is expired', 'restart'],
    ['login_session_missing', 'Login session is expired', 'restart'],
    ['invalid_login_session_state', 'Invalid login session state', 'restart'],
    ['account_locked', 'Account temporarily locked after too many failed attempts', 'soft'],
    ['otp/invalid', 'Invalid code. Please try again.', 'soft'],
    ['otp/session/invalid', 'One-time password expired or invalid', 'hard'],
    // No new code is sent in this session, and the code mail has no link: only starting again helps.
    ['otp/retries-exceeded', 'Too many wrong codes. Start again to get a new code.', 'restart'],
    ['mfa/invalid', 'Invalid code. Please try again.', 'soft'],
    // The server has ended the login session: the code form must give way to Start again.
    ['mfa/retries-exceeded', 'Too many wrong codes. Please sign in again.', 'restart'],
    ['too_many_requests', 'Too many attempts. Please wait a moment and try again.', 'soft'],
    // The mail server refuses the address (422): the email form stays, for another address.
    ['mail_undeliverable', 'This address does not accept mail, so no code could be sent. Check the address, or use another one.', 'soft'],
    ['something_new', 'Failed to authenticate', 'soft'],
  ])('%s → "%s" (%s)', (type, text, kind) => {
    const result = loginErrorFrom(error(type));
    expect(describeLoginError(result, (key) => translate(en, key))).toBe(text);
    expect(result.kind).toBe(kind);
  });

  // An answer without a type the portal knows says what happened by its status, never
  // "Failed to authenticate" (which reads like a wrong password).
  it.each([
    ['no answer at all', { status: 0, detail: [{ type: 'network_error', msg: 'Failed to fetch' }] }, 'errors.network_error'],
    ['no answer, no detail', { status: 0, detail: [] }, 'errors.network_error'],
    ["Nyckel's own 503", { status: 503, detail: [{ type: 'service_unavailable', msg: 'x' }] }, 'errors.service_unavailable'],
    ['503 without a body', { status: 503, detail: [] }, 'errors.service_unavailable'],
    ["a proxy's 502 page (HTML, no detail)", { status: 502, detail: [] }, 'errors.service_unavailable'],
    ['a 504', { status: 504, detail: [] }, 'errors.service_unavailable'],
    ['a 500 internal_error', { status: 500, detail: [{ type: 'internal_error', msg: 'An unexpected error occurred' }] }, 'errors.service_unavailable'],
    ['a plain-text 429', { status: 429, detail: [] }, 'errors.too_many_requests'],
  ])('by status: %s → %s', (_name, failure, key) => {
    expect(loginErrorFrom(failure)).toEqual({ key, kind: 'soft' });
  });

  it.each([
    ['a non-API error', new Error('boom')],
    ['undefined', undefined],
    ['a 400 without detail', { status: 400, detail: [] }],
    ['a 403 of an unknown type', { status: 403, detail: [{ type: 'cross_site_request', msg: '' }] }],
  ])('default message for %s', (_name, failure) => {
    expect(loginErrorFrom(failure).key).toBe('errors.failed_to_authenticate');
  });

  it.each([
    [0, 'errors.network_error'],
    [429, 'errors.too_many_requests'],
    [500, 'errors.service_unavailable'],
    [503, 'errors.service_unavailable'],
    [599, 'errors.service_unavailable'],
    [400, null],
    [401, null],
    [406, null],
    [422, null],
  ])('a call that may pass on retry: status %i → %s', (status, key) => {
    expect(retryableErrorKey({ status, detail: [] })).toBe(key);
  });

  it('a throw that is no answer at all is retryable, as an unexpected error', () => {
    expect(retryableErrorKey(new Error('boom'))).toBe('errors.unexpected_error');
  });

  it('uses only the first detail type', () => {
    const failure = { status: 400, detail: [{ type: 'account_locked', msg: '' }, { type: 'invalid_credentials', msg: '' }] };
    expect(loginErrorFrom(failure).key).toBe('errors.account_locked');
  });

  it('shows the server text of weak_password and validation_error translated, never raw English', () => {
    const t = (key: string) => translate(en, key);
    const known = loginErrorFrom(error('weak_password', 400, 'Password must be at least 9 characters'));
    expect(describeLoginError(known, t)).toBe('The password must be at least 9 characters');
    // A text the portal cannot translate would be English in the Swedish UI: the type's message stands in.
    const unknown = loginErrorFrom(error('validation_error', 400, 'Too big: expected string to have <=254 characters'));
    expect(describeLoginError(unknown, t)).toBe('Please check the information you entered');
    expect(describeLoginError(unknown, (key) => translate(sv, key))).toBe('Kontrollera uppgifterna du angav');
    const empty = loginErrorFrom(error('weak_password'));
    expect(describeLoginError(empty, t)).toBe(translate(en, 'errors.weak_password'));
  });

  describe('every reason the server gives for refusing a new password is told in Swedish too', () => {
    const reason = (password: string) => {
      const result = checkPasswordPolicy(password);
      if (result.ok) throw new Error(`${password} passes the policy`);
      return result.reason;
    };
    it.each([
      ['too short', 'Ab1!'],
      ['too long', `Ab1!${'x'.repeat(300)}`],
      ['no uppercase letter', 'abcdefgh1!'],
      ['no digit', 'Abcdefghi!'],
      ['no special character', 'Abcdefgh1'],
      // Meets every rule the form ticks off: only the server's reason tells the person what is wrong.
      ['a common password', 'P@ssword1'],
    ])('%s', (_name, password) => {
      const failure = error('weak_password', 422, reason(password));
      const english = describeLoginError(loginErrorFrom(failure), (key) => translate(en, key));
      const swedish = describeLoginError(loginErrorFrom(failure), (key) => translate(sv, key));
      expect(KNOWN_SERVER_MESSAGES[reason(password)], reason(password)).toBeDefined();
      expect(swedish).not.toBe(english);
      expect(swedish).not.toBe(translate(sv, 'errors.weak_password'));
    });
  });

  // The rules list beside the form names each rule in a few words ("An uppercase letter"); the
  // server's refusal under it must say what is wrong with the password as a whole sentence.
  it.each([
    ['Abcdef1!', 'The password must be at least 9 characters', 'Lösenordet måste vara minst 9 tecken'],
    ['abcdefgh1!', 'The password must contain an uppercase letter', 'Lösenordet måste innehålla en versal (stor bokstav)'],
    ['Abcdefghi!', 'The password must contain a digit', 'Lösenordet måste innehålla en siffra'],
    ['Abcdefgh1', 'The password must contain a special character, such as ! @ # $ % & * ?', 'Lösenordet måste innehålla ett specialtecken, till exempel ! @ # $ % & * ?'],
  ])('the server refusing %s reads "%s", not the rule\'s line in the list', (password, english, swedish) => {
    const result = checkPasswordPolicy(password);
    const failure = error('weak_password', 422, result.ok ? '' : result.reason);
    expect(describeLoginError(loginErrorFrom(failure), (key) => translate(en, key))).toBe(english);
    expect(describeLoginError(loginErrorFrom(failure), (key) => translate(sv, key))).toBe(swedish);
  });

  it('tells a badly formed email address in the UI language (the browser lets "anna@firma" through)', () => {
    const parsed = emailSchema.safeParse('anna@firma');
    const msg = parsed.success ? '' : (parsed.error.issues[0]?.message ?? '');
    const failure = error('validation_error', 422, msg);
    expect(describeLoginError(loginErrorFrom(failure), (key) => translate(sv, key))).toBe(translate(sv, 'errors.invalid_email'));
    expect(translate(sv, 'errors.invalid_email')).not.toBe('errors.invalid_email');
  });

  describe('setting a password from a reset link fails', () => {
    const t = (key: string) => translate(en, key);
    it.each([
      ['no answer', { status: 0, detail: [{ type: 'network_error', msg: 'Failed to fetch' }] }, 'Network error. Please try again later.'],
      ['service down', { status: 503, detail: [] }, 'The service is temporarily unavailable. Please try again in a moment.'],
      ["a proxy's 502", { status: 502, detail: [] }, 'The service is temporarily unavailable. Please try again in a moment.'],
      ['too many tries', error('too_many_requests', 429), 'Too many attempts. Please wait a moment and try again.'],
      ['a common password', error('weak_password', 422, 'Password is too common, choose another one'), translate(en, 'password.too_common')],
      ['a weak password, reason unknown', error('weak_password', 422, 'Password must not be your email'), 'The password is too weak'],
      ['a used or expired link', error('reset_failed', 406, 'Password reset failed'), 'Password reset failed'],
      ['not an API error', new Error('boom'), 'Password reset failed'],
    ])('%s', (_name, failure, text) => {
      expect(confirmResetErrorText(failure, t)).toBe(text);
    });

    // Only a spent or expired link makes the page give up the form for a new link.
    it.each([
      ['a used or expired link', error('reset_failed', 406, 'Password reset failed'), true],
      ['no answer', { status: 0, detail: [] }, false],
      ['service down', { status: 503, detail: [] }, false],
      ['too many tries', error('too_many_requests', 429), false],
      ['a weak password', error('weak_password', 422, 'Password is too common, choose another one'), false],
      ['not an API error', new Error('boom'), false],
    ])('the link is spent: %s → %s', (_name, failure, spent) => {
      expect(isSpentResetLink(failure)).toBe(spent);
    });
  });

  it('maps an error type passed in the query', () => {
    expect(loginErrorFromType('login_session_missing').kind).toBe('restart');
  });

  it.each([
    // src/oidc/interaction.routes.ts: the application's sign-in request is over (finished, or expired) before this page used it.
    ['interaction_expired', 'This sign-in page has already been used or has ended. Go back to the application and sign in from there.', 'Den här inloggningssidan har redan använts eller gått ut. Gå tillbaka till programmet och logga in därifrån.'],
    // An upstream sign-in that met a store or database outage comes back with the AppError's type.
    ['service_unavailable', 'The service is temporarily unavailable. Please try again in a moment.', 'Tjänsten är tillfälligt otillgänglig. Försök igen om en stund.'],
  ])('/login?error=%s says what happened, not "Failed to authenticate"', (type, english, swedish) => {
    const result = loginErrorFromType(type);
    expect(describeLoginError(result, (key) => translate(en, key))).toBe(english);
    expect(describeLoginError(result, (key) => translate(sv, key))).toBe(swedish);
    expect(result.kind).toBe('soft');
  });

  it('every mapped key exists in the English catalogue', () => {
    for (const { key } of Object.values(LOGIN_ERROR_TYPES)) expect(translate(en, key), key).not.toBe(key);
  });

  describe('a lock says how long it lasts (Retry-After, in seconds)', () => {
    // i18next itself, so the plural forms are looked up as in the portal.
    const i18n = i18next.createInstance();
    void i18n.init({ lng: 'en', initAsync: false, resources: { en: { translation: en }, sv: { translation: sv } } });
    const locked = (retryAfterSeconds?: number) => ({ status: 423, detail: [{ type: 'account_locked', msg: '' }], retryAfterSeconds });
    const described = (failure: unknown, language: 'en' | 'sv') => describeLoginError(loginErrorFrom(failure), i18n.getFixedT(language));

    it.each([
      [15 * 60, 'Try again in about 15 minutes.', 'Försök igen om ungefär 15 minuter.'],
      [40, 'Try again in about a minute.', 'Försök igen om ungefär en minut.'],
      [3600, 'Try again in about an hour.', 'Försök igen om ungefär en timme.'],
      [4 * 3600, 'Try again in about 4 hours.', 'Försök igen om ungefär 4 timmar.'],
      [24 * 3600, 'Try again in about a day.', 'Försök igen om ungefär en dag.'],
      [30 * 86_400, 'Try again in about 30 days.', 'Försök igen om ungefär 30 dagar.'],
    ])('%i s → "… %s"', (seconds, english, swedish) => {
      expect(described(locked(seconds), 'en')).toBe(`Account temporarily locked after too many failed attempts. ${english}`);
      expect(described(locked(seconds), 'sv')).toBe(`Kontot är tillfälligt låst efter för många misslyckade försök. ${swedish}`);
    });

    it('keeps the spec message, and the key the reset offer looks for, without a Retry-After', () => {
      expect(described(locked(), 'en')).toBe('Account temporarily locked after too many failed attempts');
      expect(loginErrorFrom(locked(900)).key).toBe('errors.account_locked');
    });

    it('says no wait for other errors that carry a Retry-After', () => {
      expect(loginErrorFrom({ status: 429, detail: [{ type: 'too_many_requests', msg: '' }], retryAfterSeconds: 60 }).wait).toBeUndefined();
    });

    it.each(Object.values(LOCK_WAIT_KEYS))('%s has both plural forms in both languages', (key) => {
      for (const catalogue of [en, sv]) for (const form of ['one', 'other']) expect(translate(catalogue, `${key}_${form}`)).not.toBe(`${key}_${form}`);
    });
  });

  it.each([
    [{ status: 0, detail: [] }, 'errors.network_error'],
    [{ status: 429, detail: [] }, 'errors.too_many_requests'],
    [{ status: 500, detail: [] }, 'errors.service_unavailable'],
    [{ status: 503, detail: [{ type: 'service_unavailable', msg: '' }] }, 'errors.service_unavailable'],
    [{ status: 400, detail: [] }, 'errors.failed_to_send_reset_email'],
    [{ status: 403, detail: [{ type: 'cross_site_request', msg: '' }] }, 'errors.failed_to_send_reset_email'],
    // The page lets `anna@firma.s` through; the server does not. Says nothing about an account.
    [{ status: 422, detail: [{ type: 'validation_error', msg: 'Invalid email address' }] }, 'errors.invalid_email'],
  ])('reset request failure %j → %s', (failure, key) => {
    expect(resetRequestErrorKey(failure)).toBe(key);
  });
});
