import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** Envelope recipients, lower-case. */
  to: string[];
  subject: string;
  /** The text/plain part, decoded. */
  text: string;
  /** The text/html part, decoded ('' when absent). */
  html: string;
}

/**
 * How the server answers RCPT TO for an address it refuses, as a real one words it: `permanent`
 * 550 (no such mailbox), `temporary` 450 (greylisted, try later). Both quote the address, as
 * Postfix does, so a test sees whether it reaches a log.
 */
export type Refusal = 'permanent' | 'temporary';

const refusals: Record<Refusal, { responseCode: number; text: (address: string) => string }> = {
  permanent: { responseCode: 550, text: (address) => `5.1.1 <${address}>: Recipient address rejected: User unknown in local recipient table` },
  temporary: { responseCode: 450, text: (address) => `4.2.0 <${address}>: Recipient address rejected: Greylisted, try again later` },
};

export interface MailServerOptions {
  /** Addresses refused at RCPT TO from the start (more with `refuse`). */
  refuse?: Record<string, Refusal>;
}

export interface MailServer {
  /** smtp://127.0.0.1:<port>, for createTestContext({ smtpUrl }). */
  url: string;
  /** Every message received, in order. */
  readonly messages: ReceivedMail[];
  /** Messages received for one address so far. */
  to(address: string): ReceivedMail[];
  /**
   * The next message to `to` (matching `predicate`) not yet returned by an earlier waitFor;
   * waits for it up to `timeoutMs`.
   */
  waitFor(to: string, predicate?: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  /** From now on, refuses mail to `address` at RCPT TO (case-insensitive); `null` accepts it again. */
  refuse(address: string, how: Refusal | null): void;
  close(): Promise<void>;
}

/**
 * A real SMTP server on loopback (no TLS, no authentication) that keeps what it receives. MIME is
 * decoded just enough for Nyckel's mails: multipart, quoted-printable, base64 and RFC 2047
 * encoded subjects.
 */
export async function startMailServer(options: MailServerOptions = {}): Promise<MailServer> {
  const refused = new Map(Object.entries(options.refuse ?? {}).map(([address, how]) => [address.toLowerCase(), how]));
  const messages: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  const listeners = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const how = refused.get(address.address.toLowerCase());
      if (!how) return callback();
      const { responseCode, text } = refusals[how];
      callback(Object.assign(new Error(text(address.address)), { responseCode }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const to = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
        messages.push({ to, ...decodeMessage(Buffer.concat(chunks).toString('latin1')) });
        for (const listener of listeners) listener();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;

  const pick = (address: string, predicate: (mail: ReceivedMail) => boolean) =>
    messages.find((m) => !taken.has(m) && m.to.includes(address) && predicate(m));

  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    to: (address) => messages.filter((m) => m.to.includes(address.toLowerCase())),
    async waitFor(to, predicate = () => true, timeoutMs = 5000) {
      const address = to.toLowerCase();
      const mail = await new Promise<ReceivedMail>((resolve, reject) => {
        const check = () => {
          const found = pick(address, predicate);
          if (!found) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`no mail to ${to} within ${timeoutMs} ms (${messages.length} received)`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
      taken.add(mail);
      return mail;
    },
    refuse(address, how) {
      if (how) refused.set(address.toLowerCase(), how);
      else refused.delete(address.toLowerCase());
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface Part {
  headers: Map<string, string>;
  body: string;
}

/** Header block and body; folded header lines are unfolded. Input is latin1 (bytes as chars). */
function splitPart(raw: string): Part {
  const match = /\r?\n\r?\n/.exec(raw);
  const head = match ? raw.slice(0, match.index) : raw;
  const body = match ? raw.slice(match.index + match[0].length) : '';
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body };
}

function decodeMessage(raw: string): { subject: string; text: string; html: string } {
  const root = splitPart(raw);
  const leaves = flatten(root);
  const find = (type: string) => leaves.find((p) => (p.headers.get('content-type') ?? 'text/plain').toLowerCase().startsWith(type));
  const text = find('text/plain');
  const html = find('text/html');
  return {
    subject: decodeWords(root.headers.get('subject') ?? ''),
    text: text ? decodeBody(text) : '',
    html: html ? decodeBody(html) : '',
  };
}

function flatten(part: Part): Part[] {
  const type = part.headers.get('content-type') ?? '';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!type.toLowerCase().startsWith('multipart/') || !boundary) return [part];
  const sections = part.body.split(`--${boundary}`).slice(1);
  return sections.filter((s) => !s.startsWith('--')).flatMap((s) => flatten(splitPart(s.replace(/^\r?\n/, ''))));
}

function decodeBody(part: Part): string {
  const encoding = (part.headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  let bytes: Buffer;
  if (encoding === 'base64') bytes = Buffer.from(part.body.replace(/\s+/g, ''), 'base64');
  else if (encoding === 'quoted-printable') bytes = quotedPrintable(part.body.replace(/=\r?\n/g, ''));
  else bytes = Buffer.from(part.body, 'latin1');
  return bytes.toString('utf8').replace(/\r\n/g, '\n').trimEnd();
}

function quotedPrintable(text: string): Buffer {
  const out: number[] = [];
  for (let i = 0; i < text.length; i += 1) {
    const hex = text.slice(i + 1, i + 3);
    if (text[i] === '=' && /^[0-9A-F]{2}$/i.test(hex)) {
      out.push(parseInt(hex, 16));
      i += 2;
    } else {
      out.push(text.charCodeAt(i) & 0xff);
    }
  }
  return Buffer.from(out);
}

/** RFC 2047 encoded words (`=?UTF-8?Q?...?=`, `=?UTF-8?B?...?=`); whitespace between words is dropped. */
function decodeWords(value: string): string {
  return Buffer.from(value, 'latin1')
    .toString('utf8')
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QB])\?([^?]*)\?=/gi, (_m, _charset: string, kind: string, data: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(data, 'base64').toString('utf8')
        : quotedPrintable(data.replace(/_/g, ' ')).toString('utf8'),
    );
}
