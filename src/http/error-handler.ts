import type { ErrorRequestHandler, RequestHandler } from 'express';
import { countDependencyError } from '../observability/metrics.ts';
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

export const notFoundHandler: RequestHandler = (_req, res) => {
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
  const httpish = err as HttpishError;
  const status = httpish.status ?? httpish.statusCode;
  if (status && status >= 400 && status < 500) {
    const type = bodyParserTypes[httpish.type ?? ''] ?? 'bad_request';
    res.status(status).json(new AppError(type, status, type.replace(/_/g, ' ')).toBody());
    return;
  }
  if (isUnavailable(err)) {
    countDependencyError((err as { name?: string }).name === 'StoreUnavailableError' ? 'store' : 'database');
    req.log?.error({ err: { message: (err as Error).message, code: (err as { code?: string }).code } }, 'dependency unavailable');
    res.status(503).set('Retry-After', '5').json(new AppError('service_unavailable', 503, 'Service temporarily unavailable').toBody());
    return;
  }
  req.log?.error({ err }, 'unhandled error');
  res.status(500).json(new AppError('internal_error', 500, 'An unexpected error occurred').toBody());
};

/** Connection failures to PostgreSQL or Redis: the caller gets 503 and may retry. */
function isUnavailable(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  const name = (err as { name?: string } | null)?.name;
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P03', '08006', '08001'].includes(code ?? '') ||
    name === 'KnexTimeoutError' ||
    name === 'StoreUnavailableError' ||
    /Connection is closed|Stream isn't writeable|max retries/i.test((err as Error)?.message ?? '')
  );
}
