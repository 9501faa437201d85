import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailer, maskAddress } from '../../src/mail/mailer.ts';
import { renderMail } from '../../src/mail/templates.ts';
import { startMailServer, type MailServer } from '../helpers/mail-server.ts';

/** The mailer's log over real SMTP: whoever reads the logs must not find a way in there. */
let smtp: MailServer;

beforeAll(async () => {
  smtp = await startMailServer();
});
afterAll(() => smtp?.close());

function capturingLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

describe('the mailer', () => {
  it('masks addresses in its log to their first letter and domain', () => {
    expect(maskAddress('karin.lind@example.com')).toBe('k***@example.com');
    expect(maskAddress('a@b@example.com')).toBe('a***@example.com');
    expect(maskAddress('@example.com')).toBe('***');
    expect(maskAddress('nobody')).toBe('***');
  });

  it.each(['en', 'sv'] as const)('logs which mail went to whom, never the code (%s)', async (language) => {
    const { logger, lines } = capturingLogger();
    const mailer = createMailer({ smtpUrl: smtp.url, from: 'nyckel@example.com', outboxDir: '/nonexistent', logger });
    const to = `code-${language}@example.com`;
    await mailer.send(renderMail(to, language, { kind: 'email_code', code: '493817', minutes: 10 }));
    await mailer.close();

    const received = await smtp.waitFor(to);
    expect(received.text).toContain('493817');
    expect(received.subject).not.toContain('493817');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ msg: 'mail sent', to: `c***@example.com`, kind: 'email_code' });
    expect(lines[0]).not.toContain(to);
    expect(lines[0]).not.toContain('493817');
  });
});
