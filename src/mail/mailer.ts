import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import { countEmail } from '../observability/metrics.ts';
import { mailErrorOf } from './mail-failure.ts';

export { MailFailedError, MailRefusedError, MailUnavailableError } from './mail-failure.ts';

export interface MailMessage {
  to: string;
  /** Which mail it is (a template's kind), for the log: never the subject, which may one day carry a code. */
  kind?: string;
  subject: string;
  text: string;
  html?: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}

export interface MailerOptions {
  smtpUrl: string | undefined;
  from: string;
  /** Where .eml files go when there is no SMTP server. */
  outboxDir: string;
  logger: Logger;
}

/**
 * How long a send may wait on the mail server, in milliseconds. nodemailer's own defaults are 2
 * minutes to connect, 30 s for the greeting and 10 minutes of silence mid-conversation, so a mail
 * server that stopped answering held a person's "send me a code" for 30 s or more before its
 * 503. A mail server that answers at all answers a small message within these.
 */
export const smtpTimeouts = { connectionTimeout: 5_000, greetingTimeout: 5_000, socketTimeout: 10_000 } as const;

/**
 * SMTP through nodemailer when SMTP_URL is set; otherwise each message is written to the outbox
 * folder as an .eml file. The log names the recipient and the kind of mail only: bodies hold codes
 * and links, and whoever reads the logs must not be able to sign in with what they find there.
 * Production logs (SMTP) mask the address (maskAddress); the development outbox names it in full,
 * beside the file that holds the whole mail anyway.
 */
export function createMailer(options: MailerOptions): Mailer {
  const transport: Transporter = options.smtpUrl
    ? nodemailer.createTransport({ url: options.smtpUrl, ...smtpTimeouts })
    : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });

  return {
    async send(message) {
      const info = await transport.sendMail({ from: options.from, ...message }).catch((error: unknown) => {
        countEmail('failed');
        // Never nodemailer's error, nor as a cause: it quotes the refused address (mail-failure.ts).
        throw mailErrorOf(error);
      });
      countEmail('sent');
      if (!options.smtpUrl) {
        await mkdir(options.outboxDir, { recursive: true });
        const file = join(options.outboxDir, `${Date.now()}-${info.messageId.replace(/[^\w.-]/g, '')}.eml`);
        await writeFile(file, (info as unknown as { message: Buffer }).message);
        options.logger.info({ to: message.to, kind: message.kind, file }, 'mail written to outbox');
      } else {
        options.logger.info({ to: maskAddress(message.to), kind: message.kind }, 'mail sent');
      }
    },
    async close() {
      transport.close();
    },
  };
}

/**
 * "k***@example.com": enough to tell which person's mail it was when helping them, not a list of
 * every address that signs in for whoever reads the logs.
 */
export function maskAddress(address: string): string {
  const at = address.lastIndexOf('@');
  if (at < 1) return '***';
  return `${address[0]}***${address.slice(at)}`;
}
