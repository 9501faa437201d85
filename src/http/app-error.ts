/**
 * The one error type of Nyckel's JSON APIs. `type` is the machine code the portal translates
 * (the spec's strings: `invalid_login_session_state`, `otp/invalid`, ...); `msg` is an English
 * text safe to show. Rendered by the error handler as {"detail":[{"type","msg"}]}.
 */
export class AppError extends Error {
  readonly type: string;
  readonly status: number;
  readonly headers: Record<string, string> | undefined;

  constructor(type: string, status: number, msg?: string, headers?: Record<string, string>) {
    super(msg ?? type);
    this.type = type;
    this.status = status;
    this.headers = headers;
  }

  toBody(): ErrorBody {
    return { detail: [{ type: this.type, msg: this.message }] };
  }
}

export interface ErrorBody {
  detail: { type: string; msg: string; loc?: (string | number)[] }[];
}

export const errors = {
  notFound: () => new AppError('not_found', 404, 'Not found'),
  unauthorized: () => new AppError('unauthorized', 401, 'Authentication required'),
  forbidden: () => new AppError('forbidden', 403, 'Not allowed'),
  badOrigin: () => new AppError('cross_site_request', 403, 'Cross-site request refused'),
  tooMany: (retryAfterSeconds: number) =>
    new AppError('too_many_requests', 429, 'Too many requests, try again later', {
      'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))),
    }),
  unavailable: () => new AppError('service_unavailable', 503, 'Service temporarily unavailable'),
};
