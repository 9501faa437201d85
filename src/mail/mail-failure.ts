/**
 * Why a mail could not be sent, told without the address. nodemailer's errors quote the mail
 * server's reply, and a refusal quotes the recipient ("550 5.1.1 <k.lind@…>: Recipient address
 * rejected"); its envelope errors also list the refused addresses (`rejected`, `rejectedErrors`)
 * and an invalid one in their message. pino's `err` serializer prints every such field, and a
 * `cause`'s message and stack as well. So the mailer (mailer.ts) throws only the errors below,
 * built from nodemailer's code, command and reply code, with no cause; and whatever logs a mail
 * failure logs `failureOf(error)`, never the error itself.
 */

/** The fields of a failure that are safe to log. */
export interface MailFailure {
  error: string;
  code?: unknown;
  command?: unknown;
  response_code?: unknown;
}

/** What went wrong, without the message: its name, nodemailer's code, the SMTP command and reply code. */
export function failureOf(error: unknown): MailFailure {
  if (!(error instanceof Error)) return { error: typeof error };
  const { code, command, responseCode } = error as Error & { code?: unknown; command?: unknown; responseCode?: unknown };
  return { error: error.name, code, command, response_code: responseCode };
}

/** What the mailer's errors keep of nodemailer's: never the reply text, the addresses or the cause. */
interface SmtpFacts {
  code: string | undefined;
  command: string | undefined;
  responseCode: number | undefined;
}

/** The mailer's errors: what nodemailer said, minus anything that names a person. */
export abstract class MailError extends Error {
  readonly code: string | undefined;
  readonly command: string | undefined;
  readonly responseCode: number | undefined;

  constructor(what: string, facts: SmtpFacts) {
    const detail = [facts.code, facts.command, facts.responseCode].filter((part) => part !== undefined).join(', ');
    super(detail ? `${what} (${detail})` : what);
    this.code = facts.code;
    this.command = facts.command;
    this.responseCode = facts.responseCode;
  }
}

/**
 * The mail server could not be reached, or put the mail off (a 4xx reply: greylisting, a full
 * queue): a call that had to mail answers 503 and may be retried, as when PostgreSQL or Redis is
 * down (src/http/error-handler.ts), not 500.
 */
export class MailUnavailableError extends MailError {
  override name = 'MailUnavailableError';
}

/**
 * The mail server refused this recipient or this message for good (a 5xx reply to RCPT TO or
 * DATA, or an address nodemailer itself refuses): sending again will not help. Answered 422
 * `mail_undeliverable` by src/http/error-handler.ts. It does not tell whether the address has
 * an account: sign-in mails an unknown address too (the "no account for this address" notice,
 * src/login/login.service.ts sendCode), so both are refused alike.
 */
export class MailRefusedError extends MailError {
  override name = 'MailRefusedError';
}

/** Any other failure (authentication, the sender refused, a protocol error): a 500, logged. */
export class MailFailedError extends MailError {
  override name = 'MailFailedError';
}

/**
 * nodemailer's codes for a mail server that could not be reached or stopped answering (refused,
 * unknown host, TLS failed, timed out, connection lost), as opposed to one that refused the message.
 */
const unreachableCodes = new Set(['ECONNECTION', 'ESOCKET', 'ETIMEDOUT', 'EDNS', 'ETLS']);

/** The commands whose refusal is about this recipient or this message, not about Nyckel's sender or login. */
const recipientCommands = new Set(['RCPT TO', 'DATA']);

/**
 * The mailer's error for one of nodemailer's. Temporary (4xx) and unreachable: unavailable.
 * Permanent (5xx) for the recipient or the message: refused; so is an envelope nodemailer refuses
 * before sending (an address it cannot use). 503 "bad sequence of commands" is the session's
 * fault, not the address's (RFC 5321; nodemailer does not count it as permanent either): failed.
 */
export function mailErrorOf(error: unknown): MailError {
  const fields = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; command?: unknown; responseCode?: unknown };
  const facts: SmtpFacts = {
    code: typeof fields.code === 'string' ? fields.code : undefined,
    command: typeof fields.command === 'string' ? fields.command : undefined,
    responseCode: typeof fields.responseCode === 'number' ? fields.responseCode : undefined,
  };
  const reply = facts.responseCode;
  if ((facts.code !== undefined && unreachableCodes.has(facts.code)) || (reply !== undefined && reply >= 400 && reply < 500)) {
    return new MailUnavailableError('mail server unavailable', facts);
  }
  const aboutRecipient = (facts.code === 'EENVELOPE' || facts.code === 'EMESSAGE') && recipientCommands.has(facts.command ?? '');
  const permanent = reply !== undefined && reply >= 500 && reply < 600 && reply !== 503;
  const refusedBeforeSending = facts.code === 'EENVELOPE' && facts.command === 'API' && reply === undefined;
  if ((aboutRecipient && permanent) || refusedBeforeSending) return new MailRefusedError('mail refused', facts);
  return new MailFailedError('mail failed', facts);
}
