import { describe, expect, it } from 'vitest';
import { chooseLanguage, renderMail, type MailLanguage, type MailTemplate } from './templates.ts';

describe('chooseLanguage', () => {
  const cases: [string, Parameters<typeof chooseLanguage>[0], MailLanguage][] = [
    ['nothing known: English', {}, 'en'],
    ['lang query wins', { lang: 'sv', acceptLanguage: 'en-US', accountLocale: 'en' }, 'sv'],
    ['unsupported lang falls through to Accept-Language', { lang: 'de', acceptLanguage: 'sv-SE,en;q=0.5' }, 'sv'],
    ['Accept-Language by quality, not order', { acceptLanguage: 'en;q=0.4, sv;q=0.9' }, 'sv'],
    ['Accept-Language skips unsupported tags', { acceptLanguage: 'de-DE, fr;q=0.9, en;q=0.1', accountLocale: 'sv' }, 'en'],
    ['q=0 means not acceptable', { acceptLanguage: 'sv;q=0', accountLocale: 'en' }, 'en'],
    ['account locale when the browser names neither', { acceptLanguage: 'de-DE', accountLocale: 'sv' }, 'sv'],
    ['region tags count', { lang: 'sv-FI' }, 'sv'],
  ];
  it.each(cases)('%s', (_name, sources, expected) => {
    expect(chooseLanguage(sources)).toBe(expected);
  });
});

describe('renderMail', () => {
  const templates: MailTemplate[] = [
    { kind: 'email_code', code: '012345', minutes: 10 },
    { kind: 'unknown_account' },
    { kind: 'reset_link', link: 'https://id.example/login/set-password/abc', minutes: 60 },
    { kind: 'migration_reset_link', link: 'https://id.example/login/set-password/abc', minutes: 60 },
    { kind: 'email_change_link', link: 'https://id.example/login/confirm-email/abc', minutes: 60, email: 'new@example.com' },
    { kind: 'email_change_requested', email: 'new@example.com' },
    { kind: 'email_changed', email: 'new@example.com' },
    ...(
      [
        'passkey_registered',
        'passkey_removed',
        'totp_activated',
        'totp_replaced',
        'totp_removed',
        'totp_merged',
        'upstream_linked',
        'credential_removed',
        'operator_credential_removed',
        'operator_signed_out',
        'operator_unlocked',
        'operator_email_changed',
        'password_created',
      ] as const
    ).map((change): MailTemplate => ({ kind: 'security_notice', change, credentialType: 'oidc', provider: 'google', at: new Date('2025-05-03T14:02:00Z') })),
  ];
  it.each(templates.flatMap((t) => (['en', 'sv'] as const).map((l) => [t.kind, l, t] as const)))('%s in %s has text and HTML', (_kind, language, template) => {
    const mail = renderMail('a@example.com', language, template);
    expect(mail.subject.length).toBeGreaterThan(3);
    expect(mail.html).toContain(`lang="${language}"`);
    if ('code' in template) expect(mail.text).toContain(template.code);
    if ('link' in template) {
      expect(mail.text).toContain(template.link);
      expect(mail.html).toContain(`href="${template.link}"`);
    }
  });

  it('gives the unknown-account notice no code', () => {
    expect(renderMail('a@example.com', 'en', { kind: 'unknown_account' }).text).not.toMatch(/\d{6}/);
  });

  it('tells each security notice apart by its subject, in both languages', () => {
    for (const language of ['en', 'sv'] as const) {
      const notices = templates.filter((t) => t.kind === 'security_notice').map((t) => renderMail('a@example.com', language, t));
      expect(new Set(notices.map((m) => m.subject)).size).toBe(notices.length);
      for (const mail of notices) {
        expect(mail.kind).toBe('security_notice');
        expect(mail.text).toContain(language === 'sv' ? 'den 3 maj 2025 kl. 16:02 (svensk tid)' : '3 May 2025 at 14:02 UTC');
        expect(mail.text).not.toMatch(/https?:/);
      }
    }
  });

  it('names the browser of a security notice from known names only, and a valid IP address only', () => {
    const render = (userAgent: string, ip: string) =>
      renderMail('a@example.com', 'en', { kind: 'security_notice', change: 'passkey_registered', at: new Date('2025-05-03T14:02:00Z'), userAgent, ip }).text;
    expect(render('Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Version/17.5 Safari/605.1.15', '2001:db8::1')).toContain(
      'This happened on 3 May 2025 at 14:02 UTC in Safari on macOS from the IP address 2001:db8::1.',
    );
    expect(render('Visit evil.example to keep your account', 'evil.example')).toContain('This happened on 3 May 2025 at 14:02 UTC.');
  });

  // A confirmed email change unlinks the Google or Microsoft sign-in linked through the old address
  // (src/login/email-change.service.ts): the notice tells how to link it again, before the sign-out.
  it.each([
    [
      'en',
      'Sign in with this address from now on. Sign-in with Google or Microsoft was unlinked from your account, as it was linked through your previous address: link it again under Sign-in methods in your account settings if you use it. Every browser',
      'Sign in with this address from now on. Every browser',
    ],
    [
      'sv',
      'Logga in med den här adressen från och med nu. Inloggning med Google eller Microsoft har kopplats bort från ditt konto, eftersom den var kopplad via din tidigare adress: koppla den igen under Inloggningssätt i dina kontoinställningar om du använder den. Alla webbläsare',
      'Logga in med den här adressen från och med nu. Alla webbläsare',
    ],
  ] as const)('an email change notice in %s says that Google or Microsoft sign-in was unlinked, only when it was', (language, unlinked, kept) => {
    const notice = (credentialType?: string) =>
      renderMail('a@example.com', language, { kind: 'security_notice', change: 'operator_email_changed', credentialType, at: new Date('2025-05-03T14:02:00Z') }).text;
    expect(notice('oidc')).toContain(unlinked);
    expect(notice()).toContain(kept);
    expect(notice()).not.toContain('Google');
  });

  // People reading Swedish are in Sweden: they check the time against their own clock, summer time
  // included. English readers may be anywhere: UTC, and the mail says so.
  it.each([
    ['winter (CET, UTC+1)', '2025-01-15T13:05:00Z', 'Det hände den 15 januari 2025 kl. 14:05 (svensk tid).', 'This happened on 15 January 2025 at 13:05 UTC.'],
    ['summer (CEST, UTC+2)', '2025-07-05T13:05:00Z', 'Det hände den 5 juli 2025 kl. 15:05 (svensk tid).', 'This happened on 5 July 2025 at 13:05 UTC.'],
    ['past midnight in Sweden only', '2025-03-05T23:30:00Z', 'Det hände den 6 mars 2025 kl. 00:30 (svensk tid).', 'This happened on 5 March 2025 at 23:30 UTC.'],
  ])('tells the time of a security notice in Swedish local time, in English in UTC: %s', (_name, at, swedish, english) => {
    const notice: MailTemplate = { kind: 'security_notice', change: 'password_changed', at: new Date(at) };
    expect(renderMail('a@example.com', 'sv', notice).text).toContain(swedish);
    expect(renderMail('a@example.com', 'en', notice).text).toContain(english);
  });

  // The portal tells of the same links "only for an hour" (confirm_email.invalid_help).
  it.each([
    ['a reset link', { kind: 'reset_link', link: 'https://x/l', minutes: 60 }, 'The link is valid for one hour and', 'Länken gäller i en timme och'],
    ['a new address’s link', { kind: 'email_change_link', link: 'https://x/l', minutes: 60, email: 'new@example.com' }, 'The link is valid for one hour and', 'Länken gäller i en timme och'],
    ['a two-hour link', { kind: 'password_setup_link', link: 'https://x/l', minutes: 120 }, 'The link is valid for 2 hours and', 'Länken gäller i 2 timmar och'],
    ['a sign-in code', { kind: 'email_code', code: '012345', minutes: 10 }, 'It is valid for 10 minutes and', 'Den gäller i 10 minuter och'],
  ] as const)('says how long %s lasts, in hours when whole', (_name, template, english, swedish) => {
    expect(renderMail('a@example.com', 'en', template).text).toContain(english);
    expect(renderMail('a@example.com', 'sv', template).text).toContain(swedish);
  });

  it('escapes HTML', () => {
    const mail = renderMail('a@example.com', 'en', { kind: 'reset_link', link: 'https://x/"><script>', minutes: 60 });
    expect(mail.html).not.toContain('<script>');
  });
});
