import { isIP } from 'node:net';
import { deviceName } from '../http/device-name.ts';
import type { MailLanguage, Rendered } from './templates.ts';

/** A change to how the person signs in, each one mailed as a security notice (ASVS V2.2.3). */
export type SecurityChange =
  | 'passkey_registered'
  | 'passkey_removed'
  | 'totp_activated'
  | 'totp_replaced'
  | 'totp_removed'
  | 'totp_merged'
  | 'upstream_linked'
  | 'credential_removed'
  | 'operator_credential_removed'
  | 'operator_signed_out'
  | 'operator_unlocked'
  | 'operator_email_changed'
  | 'password_created'
  | 'password_changed';

export interface SecurityNoticeTemplate {
  kind: 'security_notice';
  change: SecurityChange;
  /**
   * credential_removed and operator_credential_removed: the removed credential's type;
   * operator_email_changed: 'oidc' when the change unlinked sign-in with Google or Microsoft.
   */
  credentialType?: string | undefined;
  /** upstream_linked: google or microsoft. */
  provider?: string | undefined;
  at: Date;
  /** The request's User-Agent; the mail names only the browser and system it recognises in it. */
  userAgent?: string | null | undefined;
  ip?: string | null | undefined;
}

interface Copy {
  subject: (t: SecurityNoticeTemplate) => string;
  what: (t: SecurityNoticeTemplate) => string;
}

/** One paragraph of the sentences that apply (false: this notice leaves it out). */
const sentences = (...parts: (string | false)[]) => parts.filter((part) => part !== false).join(' ');

const providerName = (provider: string | undefined) =>
  provider === 'google' ? 'Google' : provider === 'microsoft' ? 'Microsoft' : 'Google / Microsoft';

const copy: Record<MailLanguage, {
  changes: Record<SecurityChange, Copy>;
  types: Record<string, string>;
  /** When it happened, with the clock it is told in. */
  at: (at: Date) => string;
  when: (at: string, browser: string | null, ip: string | null) => string;
  byOperator: string;
  ifNotYou: string;
}> = {
  en: {
    changes: {
      passkey_registered: {
        subject: () => 'A passkey was added to your account',
        what: () => 'A passkey was just added to your account. It can be used to sign in without your password.',
      },
      passkey_removed: {
        subject: () => 'A passkey was removed from your account',
        what: () => 'A passkey was just removed from your account.',
      },
      totp_activated: {
        subject: () => 'An authenticator app was turned on for your account',
        what: () => 'An authenticator app was just set up for two-factor authentication on your account.',
      },
      totp_replaced: {
        subject: () => 'Your authenticator app was replaced',
        what: () => 'The authenticator app of your account was just replaced by a new one. Codes from the old one no longer work, and remembered browsers must enter a code again.',
      },
      totp_removed: {
        subject: () => 'Your authenticator app was removed',
        what: () => 'The authenticator app was just removed from your account: signing in no longer asks for its code.',
      },
      totp_merged: {
        subject: () => 'Authenticator apps were removed from your account',
        what: () =>
          'While signing in you just kept one authenticator app, the one whose code you entered. The other authenticator apps were removed from your account: their codes no longer work.',
      },
      upstream_linked: {
        subject: (t) => `Sign-in with ${providerName(t.provider)} was linked to your account`,
        what: (t) => `Your account was just linked to a ${providerName(t.provider)} account, which can now be used to sign in.`,
      },
      credential_removed: {
        subject: () => 'A sign-in method was removed from your account',
        what: (t) => `A sign-in method was just removed from your account: ${typeName('en', t.credentialType)}.`,
      },
      operator_credential_removed: {
        subject: () => 'Support removed a sign-in method from your account',
        what: (t) =>
          `Support just removed a sign-in method from your account: ${typeName('en', t.credentialType)}. Every browser and application signed in to your account was signed out.`,
      },
      operator_signed_out: {
        subject: () => 'Support signed your account out everywhere',
        what: () => 'Support just signed your account out of every browser and application. Sign in again to go on.',
      },
      operator_unlocked: {
        subject: () => 'Support unlocked sign-in to your account',
        what: () => 'Support just lifted the lock that failed sign-in attempts had put on your account: you can sign in again.',
      },
      operator_email_changed: {
        subject: () => 'This is now the email address of your account',
        what: (t) =>
          sentences(
            'The email address of your account was just changed to this one, as you asked support and confirmed with the link mailed here. Sign in with this address from now on.',
            t.credentialType === 'oidc' &&
              'Sign-in with Google or Microsoft was unlinked from your account, as it was linked through your previous address: link it again under Sign-in methods in your account settings if you use it.',
            'Every browser and application signed in to your account was signed out.',
          ),
      },
      password_created: {
        subject: () => 'A password was added to your account',
        what: () => 'A password was just created for your account. It can now be used to sign in.',
      },
      password_changed: {
        subject: () => 'Your password was changed',
        what: () => 'The password of your account was just changed. The old password no longer works.',
      },
    },
    types: {
      password: 'the password',
      oidc: 'sign-in with Google or Microsoft',
      webauthn: 'a passkey',
      totp: 'the authenticator app',
      other: 'another sign-in method',
    },
    // An English reader may live anywhere: UTC, said so.
    at: (at) => `${new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(at)} UTC`,
    when: (at, browser, ip) => `This happened on ${at}${browser ? ` in ${browser}` : ''}${ip ? ` from the IP address ${ip}` : ''}.`,
    byOperator: 'If you did not ask for this, contact your administrator.',
    ifNotYou:
      'If this was you, there is nothing more to do. If it was not, reset your password at once, remove what you do not recognise under Sign-in methods, Two-factor authentication and Passkeys in your account settings, and contact your administrator: someone else may have access to your account.',
  },
  sv: {
    changes: {
      passkey_registered: {
        subject: () => 'En inloggningsnyckel (passkey) har lagts till på ditt konto',
        what: () => 'En inloggningsnyckel har just lagts till på ditt konto. Den kan användas för att logga in utan lösenord.',
      },
      passkey_removed: {
        subject: () => 'En inloggningsnyckel (passkey) har tagits bort från ditt konto',
        what: () => 'En inloggningsnyckel har just tagits bort från ditt konto.',
      },
      totp_activated: {
        subject: () => 'En autentiseringsapp har slagits på för ditt konto',
        what: () => 'En autentiseringsapp har just ställts in för tvåstegsverifiering på ditt konto.',
      },
      totp_replaced: {
        subject: () => 'Din autentiseringsapp har bytts ut',
        what: () => 'Autentiseringsappen för ditt konto har just bytts mot en ny. Koder från den gamla fungerar inte längre, och ihågkomna webbläsare måste ange en kod igen.',
      },
      totp_removed: {
        subject: () => 'Din autentiseringsapp har tagits bort',
        what: () => 'Autentiseringsappen har just tagits bort från ditt konto: inloggningen frågar inte längre efter dess kod.',
      },
      totp_merged: {
        subject: () => 'Autentiseringsappar har tagits bort från ditt konto',
        what: () =>
          'Vid inloggningen behöll du just en autentiseringsapp, den vars kod du angav. De andra autentiseringsapparna har tagits bort från ditt konto: deras koder fungerar inte längre.',
      },
      upstream_linked: {
        subject: (t) => `Inloggning med ${providerName(t.provider)} har kopplats till ditt konto`,
        what: (t) => `Ditt konto har just kopplats till ett ${providerName(t.provider)}-konto, som nu kan användas för att logga in.`,
      },
      credential_removed: {
        subject: () => 'Ett inloggningssätt har tagits bort från ditt konto',
        what: (t) => `Ett inloggningssätt har just tagits bort från ditt konto: ${typeName('sv', t.credentialType)}.`,
      },
      operator_credential_removed: {
        subject: () => 'Support har tagit bort ett inloggningssätt från ditt konto',
        what: (t) =>
          `Support har just tagit bort ett inloggningssätt från ditt konto: ${typeName('sv', t.credentialType)}. Alla webbläsare och program som var inloggade på ditt konto har loggats ut.`,
      },
      operator_signed_out: {
        subject: () => 'Support har loggat ut ditt konto överallt',
        what: () => 'Support har just loggat ut ditt konto från alla webbläsare och program. Logga in igen för att fortsätta.',
      },
      operator_unlocked: {
        subject: () => 'Support har låst upp inloggningen till ditt konto',
        what: () => 'Support har just tagit bort låset som misslyckade inloggningsförsök hade satt på ditt konto: du kan logga in igen.',
      },
      operator_email_changed: {
        subject: () => 'Det här är nu e-postadressen till ditt konto',
        what: (t) =>
          sentences(
            'E-postadressen till ditt konto har just ändrats till den här, som du bad support om och bekräftade med länken som mejlades hit. Logga in med den här adressen från och med nu.',
            t.credentialType === 'oidc' &&
              'Inloggning med Google eller Microsoft har kopplats bort från ditt konto, eftersom den var kopplad via din tidigare adress: koppla den igen under Inloggningssätt i dina kontoinställningar om du använder den.',
            'Alla webbläsare och program som var inloggade på ditt konto har loggats ut.',
          ),
      },
      password_created: {
        subject: () => 'Ett lösenord har lagts till på ditt konto',
        what: () => 'Ett lösenord har just skapats för ditt konto. Det kan nu användas för att logga in.',
      },
      password_changed: {
        subject: () => 'Ditt lösenord har bytts',
        what: () => 'Lösenordet till ditt konto har just bytts. Det gamla lösenordet fungerar inte längre.',
      },
    },
    types: {
      password: 'lösenordet',
      oidc: 'inloggning med Google eller Microsoft',
      webauthn: 'en inloggningsnyckel (passkey)',
      totp: 'autentiseringsappen',
      other: 'ett annat inloggningssätt',
    },
    // Swedish local time (CET or CEST as the date has it): a person checking whether the change was
    // theirs compares it with their own clock, and an hour or two off in UTC could hide one that was not.
    at: (at) => `den ${new Intl.DateTimeFormat('sv-SE', { dateStyle: 'long', timeStyle: 'short', timeZone: 'Europe/Stockholm' }).format(at)} (svensk tid)`,
    when: (at, browser, ip) => `Det hände ${at}${browser ? ` i ${browser}` : ''}${ip ? ` från IP-adressen ${ip}` : ''}.`,
    byOperator: 'Om du inte bad om det, kontakta din administratör.',
    ifNotYou:
      'Om det var du behöver du inte göra något mer. Om det inte var du, återställ lösenordet direkt, ta bort det du inte känner igen under Inloggningssätt, Tvåstegsverifiering och Inloggningsnycklar (passkeys) i dina kontoinställningar och kontakta din administratör: någon annan kan ha tillgång till ditt konto.',
  },
};

/** Changes an operator made in the console: the mail names neither the operator's browser nor their address. */
const operatorChanges: ReadonlySet<SecurityChange> = new Set([
  'operator_credential_removed',
  'operator_signed_out',
  'operator_unlocked',
  'operator_email_changed',
]);

function typeName(language: MailLanguage, type: string | undefined): string {
  const types = copy[language].types;
  return (type && types[type]) || types.other!;
}

/**
 * The notice: what changed, when, in which browser and from which address, and what to do if it
 * was not the person. No link of any kind: a notice that signs nobody in cannot be turned into a
 * phishing mail, and teaches people that a real one never asks them to click.
 */
export function renderSecurityNotice(language: MailLanguage, t: SecurityNoticeTemplate): Rendered {
  const text = copy[language];
  const change = text.changes[t.change];
  const operator = operatorChanges.has(t.change);
  // An operator's browser and address are not the person's business (nor an attacker's who holds the mailbox).
  const where = text.when(text.at(t.at), operator ? null : browserName(language, t.userAgent), operator || !t.ip || isIP(t.ip) === 0 ? null : t.ip);
  return { subject: change.subject(t), lines: [change.what(t), where, operator ? text.byOperator : text.ifNotYou] };
}

/**
 * "Firefox on Linux", as the portal names remembered devices (src/http/device-name.ts, the same
 * table). Only names from that table reach the mail, never the header itself: the User-Agent is
 * whatever the one who made the change sent, and copied into a genuine Nyckel mail it would let
 * an attacker write their own text ("call this number to secure your account") to the victim.
 */
export function browserName(language: MailLanguage, userAgent: string | null | undefined): string | null {
  const { browser, os } = deviceName(userAgent);
  if (browser && os) return `${browser} ${language === 'sv' ? 'på' : 'on'} ${os}`;
  return browser;
}
