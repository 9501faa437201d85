import type { Duplex } from 'node:stream';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { failureOf, MailRefusedError } from '../mail/mail-failure.ts';
import { countDependencyError } from '../observability/metrics.ts';
import { sendNotFoundPage } from '../oidc/pages.ts';
import { pageLanguage } from '../oidc/ui-locales.ts';
import { AppError } from './app-error.ts';

/** Errors thrown by body-parser and friends carry a status and an `expose` flag. */
interface HttpishError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  type?: string;
}

const bodyParserTypes: Record<string, string> = {
  'entity.too.large': 'payload_too_large',
  'entity.parse.failed': 'malformed_body',
  'encoding.unsupported': 'unsupported_encoding',
  'charset.unsupported': 'unsupported_charset',
  'request.aborted': 'request_aborted',
  'entity.verify.failed': 'malformed_body',
};

/**
 * The APIs' paths: whatever asks for them, an unknown one is answered in the error shape. Without
 * regard to case, as Express routes.
 */
const apiPath = /^\/(auth|api|oauth2)(\/|$)/i;

/**
 * 404 in the API's error shape; a browser opening an unknown address outside the APIs (a page
 * request: GET or HEAD preferring HTML) gets a page in its language with the way back to sign-in
 * instead of raw JSON.
 */
export const notFoundHandler: RequestHandler = (req, res) => {
  // Which of the two answers depends on Accept: a shared cache must not hand one to the other.
  res.vary('Accept');
  if ((req.method === 'GET' || req.method === 'HEAD') && !apiPath.test(req.path) && req.accepts(['json', 'html']) === 'html') {
    sendNotFoundPage(res, pageLanguage(undefined, req.acceptsLanguages('en', 'sv')));
    return;
  }
  res.status(404).json(new AppError('not_found', 404, 'Not found').toBody());
};

/**
 * The one place errors become responses. AppErrors render as they are; client errors from the
 * body parser become 4xx in the same shape; anything else is a 500 without internals.
 */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (err instanceof AppError) {
    if (err.headers) res.set(err.headers);
    if (err.status >= 500) req.log?.warn({ type: err.type }, 'service error');
    res.status(err.status).json(err.toBody());
    return;
  }
  if (err instanceof MailRefusedError) {
    // The mail server refused this address (or this mail) for good: the person can only try
    // another address, so a 4xx they can act on, not a 500. Unknown addresses are mailed too (the
    // "no account" notice), so this answer says nothing about whether the address has an account.
    req.log?.warn({ ...failureOf(err) }, 'mail refused');
    res.status(422).json(new AppError('mail_undeliverable', 422, 'The mail server refused mail to this address').toBody());
    return;
  }
  const httpish = err as HttpishError;
  const status = httpish.status ?? httpish.statusCode;
  if (status && status >= 400 && status < 500) {
    const type = bodyParserTypes[httpish.type ?? ''] ?? 'bad_request';
    res.status(status).json(new AppError(type, status, type.replace(/_/g, ' ')).toBody());
    return;
  }
  if (isRefusedValue(err)) {
    req.log?.warn({ err: { message: (err as Error).message, code: (err as { code?: string }).code } }, 'value refused by the database');
    res.status(422).json(new AppError('validation_error', 422, 'Invalid request').toBody());
    return;
  }
  if (isUnavailable(err)) {
    countDependencyError(dependencyOf(err));
    req.log?.error({ err: { message: (err as Error).message, code: (err as { code?: string }).code } }, 'dependency unavailable');
    res.status(503).set('Retry-After', '5').json(new AppError('service_unavailable', 503, 'Service temporarily unavailable').toBody());
    return;
  }
  req.log?.error({ err }, 'unhandled error');
  res.status(500).json(new AppError('internal_error', 500, 'An unexpected error occurred').toBody());
};

/**
 * PostgreSQL refused a value: class 22 "data exception" (a NUL character in text, an unsupported
 * escape in jsonb, a malformed uuid, a number out of range) or 54001 (JSON nested too deep). That
 * is bad input that got past validation, so 422 rather than 500; the log still names it.
 */
function isRefusedValue(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (/^22[0-9A-Z]{3}$/.test(code) || code === '54001');
}

/**
 * Connection failures to PostgreSQL or Redis: the caller gets 503 and may retry. node-postgres
 * reports a connection that drops mid-query or cannot be opened with messages and no code.
 */
export function isUnavailable(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  const name = (err as { name?: string } | null)?.name;
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', '57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004'].includes(code ?? '') ||
    name === 'KnexTimeoutError' ||
    name === 'StoreUnavailableError' ||
    name === 'MailUnavailableError' ||
    // oidc-provider's temporarily_unavailable (src/oidc/fail-closed.ts) and other wrappers keep the cause.
    ((err as { cause?: unknown } | null)?.cause !== undefined && isUnavailable((err as { cause: unknown }).cause)) ||
    /Connection is closed|Stream isn't writeable|max retries|Connection terminated|connection timeout|Client has encountered a connection error|Client was closed and is not queryable|terminating connection/i.test(
      (err as Error)?.message ?? '',
    )
  );
}

/** Which dependency an unavailability came from, by the store's and the mailer's own errors in its cause chain. */
export function dependencyOf(err: unknown): 'store' | 'database' | 'mail' {
  for (let link = err; link && typeof link === 'object'; link = (link as { cause?: unknown }).cause) {
    const name = (link as { name?: unknown }).name;
    if (name === 'StoreUnavailableError') return 'store';
    if (name === 'MailUnavailableError') return 'mail';
  }
  return 'database';
}

/** The status Node's own HTTP parser would answer for a request it cannot read. */
function clientErrorStatus(code: string | undefined): [number, string, string] {
  if (code === 'HPE_HEADER_OVERFLOW') return [431, 'Request Header Fields Too Large', 'headers_too_large'];
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') return [413, 'Payload Too Large', 'payload_too_large'];
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'Request Timeout', 'request_timeout'];
  return [400, 'Bad Request', 'malformed_request'];
}

/**
 * The server's `clientError` listener: requests Node's HTTP parser refuses before Express sees
 * them (bytes that are not HTTP, raw non-ASCII in the URL, headers over 16 KB) get the same 4xx
 * Node would send, with a body in the error shape instead of an empty one.
 */
export function answerClientError(err: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex): void {
  // A reset by the client, or an answer already under way on this connection: nothing to say.
  const busy = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (err.code === 'ECONNRESET' || !socket.writable || busy) {
    socket.destroy();
    return;
  }
  const [status, reason, type] = clientErrorStatus(err.code);
  // An answer to HEAD has no body; the method is the first word of what the parser received.
  const head = err.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
  const body = head ? '' : JSON.stringify(new AppError(type, status, reason).toBody());
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  );
}
