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
    { kind: 'password_changed' },
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

  it('escapes HTML', () => {
    const mail = renderMail('a@example.com', 'en', { kind: 'reset_link', link: 'https://x/"><script>', minutes: 60 });
    expect(mail.html).not.toContain('<script>');
  });
});
