import i18next from 'i18next';
import { describe, expect, it } from 'vitest';
import en from '../../portal/src/i18n/en.json' with { type: 'json' };
import sv from '../../portal/src/i18n/sv.json' with { type: 'json' };

// i18next itself, as the portal sets it up (portal/src/i18n/index.ts): a message with `count`
// takes its `_one` or `_other` form by the language's plural rules.
const i18n = i18next.createInstance();
await i18n.init({ lng: 'en', fallbackLng: 'en', resources: { en: { translation: en }, sv: { translation: sv } }, interpolation: { escapeValue: false } });

describe('a password change that signed other sessions out (profile/password-change.tsx)', () => {
  const key = 'profile.change_password.changed_signed_out';

  it.each([
    ['en', 1, 'Your password has been changed and 1 other session was signed out. We sent a notice to your email.'],
    ['en', 3, 'Your password has been changed and 3 other sessions were signed out. We sent a notice to your email.'],
    ['sv', 1, 'Ditt lösenord har bytts och 1 annan session har loggats ut. Vi har skickat ett meddelande till din e-post.'],
    ['sv', 3, 'Ditt lösenord har bytts och 3 andra sessioner har loggats ut. Vi har skickat ett meddelande till din e-post.'],
  ])('%s, %i signed out', (language, count, text) => {
    expect(i18n.getFixedT(language)(key, { count })).toBe(text);
  });
});
