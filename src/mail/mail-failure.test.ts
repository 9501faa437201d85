import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { failureOf, mailErrorOf } from './mail-failure.ts';

/** An error as nodemailer builds one (smtp-connection _formatError): the reply is in the message. */
function nodemailerError(message: string, fields: { code?: string; command?: string; response?: string }): Error {
  const responseCode = Number(/^\d+/.exec(fields.response ?? '')?.[0]) || undefined;
  return Object.assign(new Error(fields.response ? `${message}: ${fields.response}` : message), {
    ...fields,
    ...(responseCode ? { responseCode } : {}),
    rejected: ['k.lind@example.com'],
  });
}

describe('mailErrorOf', () => {
  const cases: [string, Error, string][] = [
    ['recipient refused for good', nodemailerError("Can't send mail - all recipients were rejected", { code: 'EENVELOPE', command: 'RCPT TO', response: '550 5.1.1 <k.lind@example.com>: Recipient address rejected' }), 'MailRefusedError'],
    ['message refused for good', nodemailerError('Message failed', { code: 'EMESSAGE', command: 'DATA', response: '554 5.7.1 <k.lind@example.com>: Message rejected' }), 'MailRefusedError'],
    ['an address nodemailer cannot use', nodemailerError('Invalid recipient "k.lind@example.com\\n"', { code: 'EENVELOPE', command: 'API' }), 'MailRefusedError'],
    ['recipient greylisted', nodemailerError("Can't send mail - all recipients were rejected", { code: 'EENVELOPE', command: 'RCPT TO', response: '450 4.2.0 <k.lind@example.com>: Greylisted' }), 'MailUnavailableError'],
    ['message put off', nodemailerError('Message failed', { code: 'EMESSAGE', command: 'DATA', response: '451 4.3.0 try again later' }), 'MailUnavailableError'],
    ['server too busy at the greeting', nodemailerError('Invalid greeting. response=421 busy', { code: 'EPROTOCOL', command: 'CONN', response: '421 busy' }), 'MailUnavailableError'],
    ['connection refused', nodemailerError('connect ECONNREFUSED 127.0.0.1:25', { code: 'ESOCKET', command: 'CONN' }), 'MailUnavailableError'],
    ['timed out', nodemailerError('Greeting never received', { code: 'ETIMEDOUT', command: 'CONN' }), 'MailUnavailableError'],
    ['bad sequence of commands: the session, not the address', nodemailerError('Recipient command failed', { code: 'EENVELOPE', command: 'RCPT TO', response: '503 5.5.1 need MAIL first' }), 'MailFailedError'],
    ["Nyckel's sender refused", nodemailerError('Mail command failed', { code: 'EENVELOPE', command: 'MAIL FROM', response: '553 5.7.1 sender not owned' }), 'MailFailedError'],
    ['login refused', nodemailerError('Invalid login', { code: 'EAUTH', command: 'AUTH PLAIN', response: '535 5.7.8 bad credentials' }), 'MailFailedError'],
    ['greeting refused for good: every mail, not this one', nodemailerError('Invalid greeting. response=554 go away', { code: 'EPROTOCOL', command: 'CONN', response: '554 go away' }), 'MailFailedError'],
    ['not an error at all', 'boom' as unknown as Error, 'MailFailedError'],
  ];

  it.each(cases)('%s', (_name, error, expected) => {
    const thrown = mailErrorOf(error);
    expect(thrown.name).toBe(expected);
    expect(thrown.cause).toBeUndefined();
    // What pino would write for `{ err }`, which prints a cause's message and stack too.
    expect(JSON.stringify(pino.stdSerializers.err(thrown))).not.toMatch(/@|k\.lind/);
  });

  it('keeps the code, the command and the reply code, for the log', () => {
    const thrown = mailErrorOf(nodemailerError('Recipient command failed', { code: 'EENVELOPE', command: 'RCPT TO', response: '550 5.1.1 <k.lind@example.com>: no such user' }));
    expect(thrown.message).toBe('mail refused (EENVELOPE, RCPT TO, 550)');
    expect(failureOf(thrown)).toEqual({ error: 'MailRefusedError', code: 'EENVELOPE', command: 'RCPT TO', response_code: 550 });
  });
});

describe('failureOf', () => {
  it("logs nodemailer's own error without its message, reply or refused addresses", () => {
    const error = nodemailerError("Can't send mail - all recipients were rejected", { code: 'EENVELOPE', command: 'RCPT TO', response: '550 <k.lind@example.com>: Recipient address rejected' });
    expect(failureOf(error)).toEqual({ error: 'Error', code: 'EENVELOPE', command: 'RCPT TO', response_code: 550 });
    expect(failureOf('boom')).toEqual({ error: 'string' });
  });
});
