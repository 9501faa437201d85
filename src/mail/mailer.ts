import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import { countEmail } from '../observability/metrics.ts';

export interface MailMessage {
  to: string;
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
 * SMTP through nodemailer when SMTP_URL is set; otherwise each message is written to the outbox
 * folder as an .eml file. The log names recipient and subject only: bodies hold codes and links.
 */
export function createMailer(options: MailerOptions): Mailer {
  const transport: Transporter = options.smtpUrl
    ? nodemailer.createTransport(options.smtpUrl)
    : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });

  return {
    async send(message) {
      const info = await transport.sendMail({ from: options.from, ...message }).catch((error: unknown) => {
        countEmail('failed');
        throw error;
      });
      countEmail('sent');
      if (!options.smtpUrl) {
        await mkdir(options.outboxDir, { recursive: true });
        const file = join(options.outboxDir, `${Date.now()}-${info.messageId.replace(/[^\w.-]/g, '')}.eml`);
        await writeFile(file, (info as unknown as { message: Buffer }).message);
        options.logger.info({ to: message.to, subject: message.subject, file }, 'mail written to outbox');
      } else {
        options.logger.info({ to: message.to, subject: message.subject }, 'mail sent');
      }
    },
    async close() {
      transport.close();
    },
  };
}
