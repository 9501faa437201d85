import i18next from 'i18next';
import { describe, expect, it } from 'vitest';
import { failureText } from '../../portal/src/admin/failure-text.ts';
import { ApiError } from '../../portal/src/api/client.ts';
import en from '../../portal/src/i18n/en.json' with { type: 'json' };
import sv from '../../portal/src/i18n/sv.json' with { type: 'json' };

// i18next as the portal sets it up (portal/src/i18n/index.ts), so the plural forms are the real ones.
const i18n = i18next.createInstance();
await i18n.init({ lng: 'en', fallbackLng: 'en', resources: { en: { translation: en }, sv: { translation: sv } }, interpolation: { escapeValue: false } });

const tooMany = (retryAfter?: number) => new ApiError(429, 'Too Many Requests', [{ type: 'too_many_requests', msg: 'Too many requests' }], retryAfter);

describe('a console action refused for a spent budget (429) says how long to wait, from Retry-After', () => {
  it.each([
    ['en', 808, 'Failed to unlock sign-in. Too many attempts. Try again in 14 minutes.'],
    ['en', 3600, 'Failed to unlock sign-in. Too many attempts. Try again in 60 minutes.'],
    ['en', 61, 'Failed to unlock sign-in. Too many attempts. Try again in 2 minutes.'],
    ['en', 60, 'Failed to unlock sign-in. Too many attempts. Try again in 1 minute.'],
    ['en', 59, 'Failed to unlock sign-in. Too many attempts. Try again in 59 seconds.'],
    ['en', 1, 'Failed to unlock sign-in. Too many attempts. Try again in 1 second.'],
    ['sv', 808, 'Det gick inte att låsa upp inloggningen. För många försök. Försök igen om 14 minuter.'],
    ['sv', 45, 'Det gick inte att låsa upp inloggningen. För många försök. Försök igen om 45 sekunder.'],
    ['sv', 60, 'Det gick inte att låsa upp inloggningen. För många försök. Försök igen om 1 minut.'],
  ])('%s, Retry-After %i', (language, retryAfter, text) => {
    const t = i18n.getFixedT(language);
    expect(failureText(t('admin.account.unlock_failed'), tooMany(retryAfter), t)).toBe(text);
  });

  it('without Retry-After it says to wait a moment, as before', () => {
    const t = i18n.getFixedT('en');
    expect(failureText(t('admin.account.unlock_failed'), tooMany(), t)).toBe('Failed to unlock sign-in. Too many attempts. Please wait a moment and try again.');
  });

  it.each([
    [
      'en',
      'Failed to send password reset email. The limit for password reset emails has been reached: the person may already have several, and only the newest link works. Try again in 14 minutes.',
    ],
    [
      'sv',
      'Det gick inte att skicka e-post för lösenordsåterställning. Gränsen för e-post om lösenordsåterställning har nåtts: personen kan redan ha fått flera, och bara den senaste länken fungerar. Försök igen om 14 minuter.',
    ],
  ])("a reset mail's says the reset mails' limit was reached (%s)", (language, text) => {
    const t = i18n.getFixedT(language);
    expect(failureText(t('errors.failed_to_send_reset_email'), tooMany(808), t, { limitKey: 'admin.account.reset_limit' })).toBe(text);
  });

  it('other failures read as before', () => {
    const t = i18n.getFixedT('en');
    const forbidden = new ApiError(403, 'Forbidden', [{ type: 'forbidden', msg: 'Not allowed' }]);
    expect(failureText('Failed to unlock sign-in', forbidden, t, { limitKey: 'admin.account.reset_limit' })).toBe('Failed to unlock sign-in. Your operator role does not allow this.');
  });
});
