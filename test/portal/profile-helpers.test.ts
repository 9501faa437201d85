import { describe, expect, it } from 'vitest';
import en from '../../portal/src/i18n/en.json' with { type: 'json' };
import sv from '../../portal/src/i18n/sv.json' with { type: 'json' };
import { arrivalNotice } from '../../portal/src/profile/profile-navigation.ts';
import { deviceName } from '../../src/http/device-name.ts';
import { initialsOf } from '../../portal/src/profile/initials.ts';
import { activateOutcome, passwordChangeFailure, profileFailure, reauthUrl } from '../../portal/src/profile/profile-errors.ts';
import { RELATIVE_TIME_KEYS, relativeTime } from '../../portal/src/profile/relative-time.ts';
import { codeInput, compactSecret, groupSecret, qrCodeSrc } from '../../portal/src/profile/totp-secret.ts';
import { describeSwitchMessage, upstreamArrival } from '../../portal/src/profile/upstream-arrival.ts';
import { translate } from './translate.ts';

describe('device name from the user agent', () => {
  it.each([
    ['Chrome on Windows', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36', 'Chrome', 'Windows'],
    ['Chrome on macOS', 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36', 'Chrome', 'macOS'],
    ['headless Chromium on Linux', 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/130.0.0.0 Safari/537.36', 'Chrome', 'Linux'],
    ['Edge on Windows', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.2592.68', 'Edge', 'Windows'],
    ['Opera on Windows', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 OPR/106.0.0.0', 'Opera', 'Windows'],
    ['Firefox on Linux', 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0', 'Firefox', 'Linux'],
    ['Safari on macOS', 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15', 'Safari', 'macOS'],
    ['Safari on iPhone', 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1', 'Safari', 'iPhone'],
    ['Chrome on iPad', 'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0.6478.54 Mobile/15E148 Safari/604.1', 'Chrome', 'iPad'],
    ['Firefox on iPhone', 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/127.0 Mobile/15E148 Safari/605.1.15', 'Firefox', 'iPhone'],
    ['Samsung Internet on Android', 'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36', 'Samsung Internet', 'Android'],
    ['Chrome on Android', 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36', 'Chrome', 'Android'],
    ['Chrome on ChromeOS', 'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36', 'Chrome', 'ChromeOS'],
    ['a script', 'curl/8.5.0', null, null],
    ['no user agent', null, null, null],
  ])('%s', (_name, userAgent, browser, os) => {
    expect(deviceName(userAgent)).toEqual({ browser, os });
  });
});

describe('the setup key', () => {
  it.each([
    ['JBSWY3DPEHPK3PXP', 'JBSW Y3DP EHPK 3PXP'],
    ['JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', 'JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP'],
    ['ABCDEFGHIJ', 'ABCD EFGH IJ'],
    ['abcd efgh', 'ABCD EFGH'],
    ['', ''],
  ])('%s is shown as "%s"', (secret, shown) => {
    expect(groupSecret(secret)).toBe(shown);
  });

  it('is copied without the spaces it is shown with', () => {
    expect(compactSecret(groupSecret('JBSWY3DPEHPK3PXP'))).toBe('JBSWY3DPEHPK3PXP');
  });

  it('gets a new QR image address for each new pending secret', () => {
    expect(qrCodeSrc(1)).toBe('/auth/qrcode?v=1');
    expect(qrCodeSrc(2)).not.toBe(qrCodeSrc(1));
  });
});

describe('the code field', () => {
  it.each([
    ['123456', '123456'],
    ['123 456', '123456'],
    ['12a3', '123'],
    ['12345678', '123456'],
    ['', ''],
  ])('"%s" becomes "%s"', (typed, kept) => {
    expect(codeInput(typed)).toBe(kept);
  });
});

describe('last use in relative words', () => {
  const now = new Date(2025, 5, 15, 12, 0);
  const daysAgo = (days: number, hour = 9) => new Date(2025, 5, 15 - days, hour, 0).toISOString();

  it.each([
    ['earlier today', daysAgo(0, 1), 'today', 0],
    ['later today (clock skew)', daysAgo(0, 23), 'today', 0],
    ['yesterday evening', daysAgo(1, 23), 'yesterday', 1],
    ['2 days', daysAgo(2), 'days', 2],
    ['6 days', daysAgo(6), 'days', 6],
    ['7 days', daysAgo(7), 'weeks', 1],
    ['29 days', daysAgo(29), 'weeks', 4],
    ['30 days', daysAgo(30), 'months', 1],
    ['364 days', daysAgo(364), 'months', 12],
    ['365 days', daysAgo(365), 'years', 1],
    ['800 days', daysAgo(800), 'years', 2],
  ])('%s', (_name, at, unit, count) => {
    expect(relativeTime(at, now)).toEqual({ unit, count });
  });

  it.each([null, undefined, '', 'not a date'])('is unknown for %s', (at) => {
    expect(relativeTime(at, now)).toBeNull();
  });

  it('has words for every unit in both languages', () => {
    for (const key of Object.values(RELATIVE_TIME_KEYS)) {
      for (const catalogue of [en, sv]) {
        const found = translate(catalogue, key) !== key || translate(catalogue, `${key}_other`) !== `${key}_other`;
        expect(found, key).toBe(true);
      }
    }
  });
});

describe('initials for the avatar', () => {
  it.each([
    ['Anna Svensson', 'anna@example.com', 'AS'],
    ['Anna Maria Svensson', 'anna@example.com', 'AS'],
    ['anna', 'anna@example.com', 'A'],
    ['  Örjan  Åberg ', 'o@example.com', 'ÖÅ'],
    ['', 'kalle@example.com', 'K'],
    [null, 'kalle@example.com', 'K'],
    [null, '', '?'],
  ])('%s <%s> → %s', (name, email, initials) => {
    expect(initialsOf(name, email)).toBe(initials);
  });
});

describe('failed profile calls', () => {
  const error = (status: number, type?: string) => ({ status, detail: type ? [{ type, msg: '' }] : [] });

  it.each([
    ['no session', error(401, 'unauthorized'), { kind: 'signed-out' }],
    ['401 without a body', error(401), { kind: 'signed-out' }],
    ['a wrong code is not a lost session', error(401, 'totp/invalid'), { kind: 'rejected', status: 401, type: 'totp/invalid' }],
    ['stale sign-in', error(403, 'reauthentication_required'), { kind: 'reauth', reason: 'recent-sign-in' }],
    ['a sign-in without a second factor, on an account that has one', error(403, 'profile/mfa-required'), { kind: 'reauth', reason: 'second-factor' }],
    ['the same, as the profile answered it before (the console’s type)', error(403, 'operator/mfa-required'), { kind: 'reauth', reason: 'second-factor' }],
    ['another 403', error(403, 'cross_site_request'), { kind: 'rejected', status: 403, type: 'cross_site_request' }],
    ['no answer', error(0, 'network_error'), { kind: 'network' }],
    ['service down', error(503), { kind: 'network' }],
    ['last method', error(409, 'credential/password-required'), { kind: 'rejected', status: 409, type: 'credential/password-required' }],
    ['not an API error', new Error('boom'), { kind: 'rejected', status: 0, type: undefined }],
  ])('%s', (_name, failure, expected) => {
    expect(profileFailure(failure)).toEqual(expected);
  });

  it.each([
    [error(422, 'totp/required'), 'required'],
    [error(401, 'totp/invalid'), 'invalid'],
    [error(409, 'totp/no-pending'), 'expired'],
    [error(403, 'reauthentication_required'), 'reauth'],
    [error(403, 'profile/mfa-required'), 'reauth'],
    [error(403, 'operator/mfa-required'), 'reauth'],
    [error(401, 'unauthorized'), 'signed-out'],
    [error(429, 'too_many_requests'), 'too-many'],
    [error(0, 'network_error'), 'network'],
    [error(500, 'internal'), 'unexpected'],
  ])('activation failure %j → %s', (failure, outcome) => {
    expect(activateOutcome(failure)).toBe(outcome);
  });

  describe('a failed password change', () => {
    const refused = (status: number, type: string, msg: string) => ({ status, detail: [{ type, msg }] });
    it.each([
      ['wrong current password', error(403, 'password/current-invalid'), 'profile.change_password.current_invalid', true],
      // The form's rules were all met: the server's reason is the news, in the UI language.
      ['a common password', refused(422, 'weak_password', 'Password is too common, choose another one'), 'password.too_common', false],
      ['a too long password', refused(422, 'weak_password', 'Password must be at most 256 characters'), 'password.too_long', false],
      ['a weak password, reason unknown', refused(422, 'weak_password', 'Something new'), 'errors.weak_password', false],
      ['locked', error(423, 'account_locked'), 'errors.account_locked', false],
      ['too many tries', error(429, 'too_many_requests'), 'errors.too_many_requests', false],
      ['no answer', error(0, 'network_error'), 'errors.network_error', false],
      ['no password to change', error(409, 'password/none'), 'profile.change_password.failed', false],
      ['not an API error', new Error('boom'), 'profile.change_password.failed', false],
    ])('%s', (_name, failure, key, current) => {
      expect(passwordChangeFailure(failure)).toEqual({ kind: 'problem', key, current });
      for (const catalogue of [en, sv]) expect(translate(catalogue, key)).not.toBe(key);
    });

    it('a lost session sends the person to sign in', () => {
      expect(passwordChangeFailure(error(401, 'unauthorized'))).toEqual({ kind: 'signed-out' });
    });
  });

  it('sends the person to sign in again with their email, and back to the profile page they were on', () => {
    expect(reauthUrl('anna+test@example.com')).toBe('/login?email=anna%2Btest%40example.com&return_to=%2Fprofile');
    const query = new URLSearchParams(reauthUrl('anna+test@example.com', '/profile/credentials/totp/setup').split('?')[1]);
    expect([query.get('email'), query.get('return_to')]).toEqual(['anna+test@example.com', '/profile/credentials/totp/setup']);
    expect(query.has('second_factor')).toBe(false);
  });

  it('asks the login page for a second factor when the change needs one', () => {
    const query = new URLSearchParams(reauthUrl('olle@example.com', '/profile', 'second-factor').split('?')[1]);
    expect(Object.fromEntries(query)).toEqual({ email: 'olle@example.com', return_to: '/profile', second_factor: '1' });
  });
});

describe('the notice carried to /profile', () => {
  it.each([
    [{ notice: 'totp-activated' }, 'totp-activated'],
    [{ notice: 'something-else' }, null],
    [null, null],
    ['totp-activated', null],
    [undefined, null],
  ])('%j → %s', (state, notice) => {
    expect(arrivalNotice(state)).toBe(notice);
  });
});

describe('back on /profile from linking Google or Microsoft', () => {
  const inEnglish = (key: string, options?: { provider: string }) => translate(en, key).replace('{{provider}}', options?.provider ?? '{{provider}}');
  const inSwedish = (key: string, options?: { provider: string }) => translate(sv, key).replace('{{provider}}', options?.provider ?? '{{provider}}');

  it.each([
    ['?linked=google', 'Your Google account is linked.', 'Ditt Google-konto är kopplat.'],
    [
      '?error=oauth/identity_in_use',
      'That account is already linked to another Nyckel account. Link a different one, or sign in with that one.',
      'Det kontot är redan kopplat till ett annat Nyckel-konto. Koppla ett annat konto, eller logga in med det.',
    ],
    ['?error=oauth/access_denied', translate(en, 'upstream.errors.access_denied'), translate(sv, 'upstream.errors.access_denied')],
    ['?error=reauthentication_required', translate(en, 'upstream.errors.reauthentication_required'), translate(sv, 'upstream.errors.reauthentication_required')],
    ['?error=too_many_requests', 'Too many attempts. Please wait a moment and try again.', 'För många försök. Vänta en stund och försök igen.'],
    ['?error=oauth/something_new', 'An unexpected error occurred', 'Ett oväntat fel inträffade'],
    ['?error=service_unavailable', 'The service is temporarily unavailable. Please try again in a moment.', 'Tjänsten är tillfälligt otillgänglig. Försök igen om en stund.'],
  ])('%s is told in the language in use when shown, not when it arrived', (search, english, swedish) => {
    // The account's saved language can switch the page after the message arrived.
    const message = upstreamArrival(search);
    expect(message).not.toBeNull();
    expect(describeSwitchMessage(message!, inEnglish)).toBe(english);
    expect(describeSwitchMessage(message!, inSwedish)).toBe(swedish);
  });

  it.each(['', '?linked=yahoo', '?lang=sv'])('%j shows nothing', (search) => {
    expect(upstreamArrival(search)).toBeNull();
  });

  it('asks to sign in again when the link needed a recent sign-in', () => {
    expect(upstreamArrival('?error=reauthentication_required')?.reauth).toBe(true);
    expect(upstreamArrival('?error=oauth/not_linked')?.reauth).toBeUndefined();
  });
});
