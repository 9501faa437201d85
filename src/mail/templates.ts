import type { MailMessage } from './mailer.ts';
import { renderSecurityNotice, type SecurityNoticeTemplate } from './security-notice.template.ts';

export type MailLanguage = 'en' | 'sv';

export type MailTemplate =
  | { kind: 'email_code'; code: string; minutes: number }
  | { kind: 'unknown_account' }
  | { kind: 'reset_link'; link: string; minutes: number }
  | { kind: 'migration_reset_link'; link: string; minutes: number }
  | { kind: 'password_setup_link'; link: string; minutes: number }
  /** To the new address an operator entered: the link that makes it the account's (email-change.ts). */
  | { kind: 'email_change_link'; link: string; minutes: number; email: string }
  /** To the account's address when an operator asks to change it: who holds it hears first. */
  | { kind: 'email_change_requested'; email: string }
  /** To the previous address once the change is confirmed: it no longer signs in. */
  | { kind: 'email_changed'; email: string }
  | SecurityNoticeTemplate;

export interface Rendered {
  subject: string;
  /** Paragraphs; the first is the greeting line, {{action}} marks where the code or link goes. */
  lines: string[];
  action?: { text: string; href?: string };
}

type CopiedKind = Exclude<MailTemplate['kind'], 'security_notice'>;

/**
 * How long a code or link lasts, in whole hours when it is: a link mail says "one hour", as the
 * portal's pages about the same links do, not "60 minutes".
 */
const validity: Record<MailLanguage, (minutes: number) => string> = {
  en: (minutes) =>
    minutes % 60 === 0 ? (minutes === 60 ? 'one hour' : `${minutes / 60} hours`) : minutes === 1 ? 'one minute' : `${minutes} minutes`,
  sv: (minutes) =>
    minutes % 60 === 0 ? (minutes === 60 ? 'en timme' : `${minutes / 60} timmar`) : minutes === 1 ? 'en minut' : `${minutes} minuter`,
};

const copy: Record<MailLanguage, { [K in CopiedKind]: (t: Extract<MailTemplate, { kind: K }>) => Rendered }> = {
  en: {
    email_code: (t) => ({
      // Not in the subject: subjects show on lock screens and in mail logs.
      subject: 'Your sign-in code',
      lines: ['Use this code to sign in:', `It is valid for ${validity.en(t.minutes)} and can be used once. If you did not try to sign in, you can ignore this email.`],
      action: { text: t.code },
    }),
    unknown_account: () => ({
      subject: 'Sign-in attempt',
      lines: [
        'Someone tried to sign in with this email address, but there is no account for it.',
        'If it was you, check that you typed the address your organisation invited you with. Otherwise you can ignore this email.',
      ],
    }),
    reset_link: (t) => ({
      subject: 'Reset your password',
      lines: ['We received a request to set a new password for your account. Open this link to choose one:', `The link is valid for ${validity.en(t.minutes)} and can be used once. If you did not ask for it, you can ignore this email.`],
      action: { text: 'Set a new password', href: t.link },
    }),
    migration_reset_link: (t) => ({
      subject: 'Create a new password',
      lines: [
        'There is now one account per email address. To keep signing in, create a new password with this link:',
        `The link is valid for ${validity.en(t.minutes)} and can be used once.`,
      ],
      action: { text: 'Create a new password', href: t.link },
    }),
    password_setup_link: (t) => ({
      subject: 'Set a password for your account',
      lines: ['You asked to sign in with a password from now on. Open this link to choose one:', `The link is valid for ${validity.en(t.minutes)} and can be used once. If you did not ask for it, you can ignore this email.`],
      action: { text: 'Set a password', href: t.link },
    }),
    email_change_link: (t) => ({
      subject: 'Confirm your new email address',
      lines: [
        `Support asked to make ${t.email} the email address of your Nyckel account. Open this link to confirm it:`,
        `The link is valid for ${validity.en(t.minutes)} and can be used once. Until you confirm, nothing changes. If you did not ask for it, you can ignore this email.`,
      ],
      action: { text: 'Confirm the new address', href: t.link },
    }),
    email_change_requested: (t) => ({
      subject: 'A change of your email address was requested',
      lines: [
        `Support asked to change your account's email address to ${t.email}. The change takes effect only once it is confirmed from that address.`,
        'If you did not ask for it, contact your administrator.',
      ],
    }),
    email_changed: (t) => ({
      subject: 'Your account has a new email address',
      lines: [
        `The email address of your account was changed to ${t.email}, at your request to support. This address no longer signs in to it, and no more mail about the account comes here.`,
        'If you did not ask for it, contact your administrator.',
      ],
    }),
  },
  sv: {
    email_code: (t) => ({
      subject: 'Din inloggningskod',
      lines: ['Använd den här koden för att logga in:', `Den gäller i ${validity.sv(t.minutes)} och kan användas en gång. Om du inte försökte logga in kan du bortse från det här mejlet.`],
      action: { text: t.code },
    }),
    unknown_account: () => ({
      subject: 'Inloggningsförsök',
      lines: [
        'Någon försökte logga in med den här e-postadressen, men det finns inget konto för den.',
        'Om det var du, kontrollera att du skrev adressen som din organisation bjöd in dig med. Annars kan du bortse från det här mejlet.',
      ],
    }),
    reset_link: (t) => ({
      subject: 'Återställ ditt lösenord',
      lines: ['Vi har fått en begäran om att välja ett nytt lösenord för ditt konto. Öppna länken för att välja ett:', `Länken gäller i ${validity.sv(t.minutes)} och kan användas en gång. Om du inte bad om den kan du bortse från det här mejlet.`],
      action: { text: 'Välj ett nytt lösenord', href: t.link },
    }),
    migration_reset_link: (t) => ({
      subject: 'Skapa ett nytt lösenord',
      lines: [
        'Nu finns det ett konto per e-postadress. Skapa ett nytt lösenord med den här länken för att fortsätta logga in:',
        `Länken gäller i ${validity.sv(t.minutes)} och kan användas en gång.`,
      ],
      action: { text: 'Skapa ett nytt lösenord', href: t.link },
    }),
    password_setup_link: (t) => ({
      subject: 'Välj ett lösenord för ditt konto',
      lines: ['Du har bett om att kunna logga in med lösenord. Öppna länken för att välja ett:', `Länken gäller i ${validity.sv(t.minutes)} och kan användas en gång. Om du inte bad om den kan du bortse från det här mejlet.`],
      action: { text: 'Välj ett lösenord', href: t.link },
    }),
    email_change_link: (t) => ({
      subject: 'Bekräfta din nya e-postadress',
      lines: [
        `Support har bett om att ${t.email} ska bli e-postadressen till ditt Nyckel-konto. Öppna länken för att bekräfta:`,
        `Länken gäller i ${validity.sv(t.minutes)} och kan användas en gång. Inget ändras förrän du bekräftar. Om du inte bad om det kan du bortse från det här mejlet.`,
      ],
      action: { text: 'Bekräfta den nya adressen', href: t.link },
    }),
    email_change_requested: (t) => ({
      subject: 'En ändring av din e-postadress har begärts',
      lines: [
        `Support har bett om att ändra ditt kontos e-postadress till ${t.email}. Ändringen gäller först när den har bekräftats från den adressen.`,
        'Om du inte bad om det, kontakta din administratör.',
      ],
    }),
    email_changed: (t) => ({
      subject: 'Ditt konto har en ny e-postadress',
      lines: [
        `E-postadressen till ditt konto har ändrats till ${t.email}, på din begäran till support. Den här adressen kan inte längre användas för att logga in, och mejl om kontot skickas inte längre hit.`,
        'Om du inte bad om det, kontakta din administratör.',
      ],
    }),
  },
};

/** A message in plain text and simple HTML; the code or link sits after the first paragraph. */
export function renderMail(to: string, language: MailLanguage, template: MailTemplate): MailMessage {
  const { subject, lines, action } =
    template.kind === 'security_notice' ? renderSecurityNotice(language, template) : (copy[language][template.kind] as (t: MailTemplate) => Rendered)(template);
  const [first, ...rest] = lines;
  const actionText = action ? (action.href ? action.href : action.text) : undefined;
  const text = `${[first, ...(actionText ? [actionText] : []), ...rest, '— Nyckel'].join('\n\n')}\n`;
  const actionHtml = action
    ? action.href
      ? `<p><a href="${escapeHtml(action.href)}">${escapeHtml(action.text)}</a></p>`
      : `<p style="font-size:24px;letter-spacing:4px"><strong>${escapeHtml(action.text)}</strong></p>`
    : '';
  const html = [
    `<!doctype html><html lang="${language}"><body style="font-family:sans-serif">`,
    `<p>${escapeHtml(first ?? '')}</p>`,
    actionHtml,
    ...rest.map((line) => `<p>${escapeHtml(line)}</p>`),
    '<p>— Nyckel</p></body></html>',
  ].join('');
  return { to, kind: template.kind, subject, text, html };
}

/**
 * The mail's language: an explicit `lang` (the login page's query), then the browser's
 * Accept-Language, then the account's saved locale; English otherwise.
 */
export function chooseLanguage(sources: { lang?: string | undefined; acceptLanguage?: string | undefined; accountLocale?: string | null | undefined }): MailLanguage {
  return (
    supported(sources.lang) ??
    fromAcceptLanguage(sources.acceptLanguage) ??
    supported(sources.accountLocale) ??
    'en'
  );
}

function supported(tag: string | null | undefined): MailLanguage | undefined {
  const primary = tag?.trim().toLowerCase().split(/[-_]/)[0];
  return primary === 'sv' || primary === 'en' ? primary : undefined;
}

function fromAcceptLanguage(header: string | undefined): MailLanguage | undefined {
  if (!header) return undefined;
  const ranked = header
    .split(',')
    .slice(0, 20)
    .map((part, index) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag, q: q ? Number(q.slice(2)) || 0 : 1, index };
    })
    .filter((entry) => entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const entry of ranked) {
    const language = supported(entry.tag);
    if (language) return language;
  }
  return undefined;
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
